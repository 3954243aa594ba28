"""The answers the API and the dashboard share: one cache entry per question (accounting.rankings.cache).

A ranking (or a serving ranking) is built once per question and data version, whoever asks first: the entry holds
the answer as the API sends it (`data`, the serializer's output) and the engine's result itself, pickled, which
the dashboard's tables and chart read. The API never unpickles the result (its cached request stays as cheap as
before: one bytes object more to copy), and the dashboard never rebuilds what the API built, or the reverse.
"""

import pickle
from dataclasses import dataclass

from accounting.api.ranking_serializers import RankingSerializer
from accounting.api.serving_serializers import ServingRankingSerializer
from accounting.empty_answers import why_empty
from accounting.question import CostQuestion
from accounting.rankings import cache
from accounting.rankings.ranking import Ranking, rank
from accounting.serving.ranking import ServingRanking, read_serving


@dataclass(frozen=True)
class Built:
    """What the cache keeps for one question: the API's answer and the engine's result, pickled."""

    data: dict
    result_pickled: bytes


@dataclass(frozen=True)
class Answer:
    data: dict  # the API's answer
    tag: str | None  # names this answer (its key and data version): the key of what is drawn from it
    _result_pickled: bytes

    def result(self):
        """The engine's result (Ranking, ServingRanking) this answer was built from."""
        return pickle.loads(self._result_pickled)  # written by this process or a peer worker, never by a client

    def drawn(self, name: str, draw):
        """draw() (a chart of this answer) made once per built answer (accounting.rankings.cache.derived)."""
        return cache.derived(self.tag, name, draw)


def ranking_answer(question: CostQuestion) -> Answer:
    """The ranking for the question: the API's JSON, and the Ranking through Answer.result()."""
    return _answer("ranking", question, rank, RankingSerializer)


def serving_answer(question: CostQuestion) -> Answer:
    """The LLM serving ranking for the question: the API's JSON, and the ServingRanking through Answer.result()."""
    return _answer("serving", question, read_serving, ServingRankingSerializer)


def _answer(engine: str, question: CostQuestion, answer, serializer_class) -> Answer:
    def build() -> Built:
        result: Ranking | ServingRanking = answer(question)
        # An answer with no row says why (accounting.empty_answers), in the cached JSON too.
        data = serializer_class(result, context={"empty_reason": why_empty(question, result)}).data
        return Built(dict(data), pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))

    found = cache.cached_with_tag({"engine": engine, **question.cache_key()}, build)
    return Answer(found.value.data, found.tag, found.value.result_pickled)
