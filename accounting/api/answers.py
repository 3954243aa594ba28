"""The answers the API and the dashboard share: one cache entry per question (accounting.rankings.cache).

A ranking (or a serving ranking) is built once per question and data version, whoever asks first: the entry holds
the answer as the API sends it (`data`, the serializer's output), and beside it (a part under the entry's tag) the
engine's result itself, pickled, which the dashboard's tables and chart read. The API never loads the result (its
cached request reads what it read before), and the dashboard never rebuilds what the API built, or the reverse.
"""

import pickle
from collections.abc import Callable
from dataclasses import dataclass

from accounting.api.ranking_serializers import RankingSerializer
from accounting.api.serving_serializers import ServingRankingSerializer
from accounting.empty_answers import why_empty
from accounting.question import CostQuestion
from accounting.rankings import cache
from accounting.rankings.ranking import Ranking, rank
from accounting.serving.ranking import ServingRanking, read_serving


@dataclass(frozen=True)
class Answer:
    data: dict  # the API's answer
    tag: str | None  # names this answer (its key and data version): the key of what is drawn from it
    _built_here: dict  # the parts when this request built the answer
    _rebuild: Callable[[], object]  # the engine's result again, if the cache lost the one kept beside the answer

    def result(self):
        """The engine's result (Ranking, ServingRanking) this answer was built from."""
        pickled = self._built_here.get(RESULT) or cache.derived(
            self.tag, RESULT, lambda: pickle.dumps(self._rebuild(), pickle.HIGHEST_PROTOCOL)
        )
        return pickle.loads(pickled)  # written by this process or a peer worker, never by a client

    def drawn(self, name: str, draw):
        """draw() (a chart of this answer) made once per built answer (accounting.rankings.cache.derived)."""
        return cache.derived(self.tag, name, draw)


RESULT = "result"


def ranking_answer(question: CostQuestion) -> Answer:
    """The ranking for the question: the API's JSON, and the Ranking through Answer.result()."""
    return _answer("ranking", question, rank, RankingSerializer)


def serving_answer(question: CostQuestion) -> Answer:
    """The LLM serving ranking for the question: the API's JSON, and the ServingRanking through Answer.result()."""
    return _answer("serving", question, read_serving, ServingRankingSerializer)


def _answer(engine: str, question: CostQuestion, answer, serializer_class) -> Answer:
    def build() -> cache.WithParts:
        result: Ranking | ServingRanking = answer(question)
        # An answer with no row says why (accounting.empty_answers), in the cached JSON too.
        data = serializer_class(result, context={"empty_reason": why_empty(question, result)}).data
        pickled = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        return cache.WithParts(dict(data), {RESULT: pickled})

    found = cache.cached_with_tag({"engine": engine, **question.cache_key()}, build)
    return Answer(found.value, found.tag, found.parts, lambda: answer(question))
