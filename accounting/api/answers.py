"""The answers the API and the dashboard share: one cache entry per question (accounting.rankings.cache).

A ranking (or a serving ranking) is built once per question and data version, whoever asks first: the entry holds
the answer as the API sends it, rendered once to its JSON bytes and gzipped (`json_gzip`, with its `empty_reason`
beside it), and beside it (a part under the entry's tag) the engine's result itself, pickled, which the dashboard's
tables and chart read. A cached API request sends those bytes as they are (`AnswerResponse`): no unpickling of a
nested answer, no JSON rendering (for a 170 KB serving ranking those were 4 of its 6 ms of CPU). The API never
loads the result, and the dashboard never rebuilds what the API built, or the reverse. Every key names the release
that built it (accounting.rankings.cache), so a deploy never reads an older release's entries.
"""

import gzip
import json
import pickle
from collections.abc import Callable
from dataclasses import dataclass

from django.middleware.gzip import re_accepts_gzip as accepts_gzip
from django.utils.cache import patch_vary_headers
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from accounting.api.ranking_serializers import RankingSerializer
from accounting.api.serving_serializers import ServingRankingSerializer
from accounting.empty_answers import why_empty
from accounting.question import CostQuestion
from accounting.rankings import cache
from accounting.rankings.ranking import Ranking, rank
from accounting.serving.ranking import ServingRanking, read_serving


@dataclass(frozen=True)
class Answer:
    json_gzip: bytes  # the API's answer, rendered by DRF's JSONRenderer when it was built, gzipped
    empty_reason: str | None  # why the answer has no row (accounting.empty_answers), worked out once
    tag: str | None  # names this answer (its key and data version): the key of what is drawn from it
    _built_here: dict  # the parts when this request built the answer
    _rebuild: Callable[[], object]  # the engine's result again, if the cache lost the one kept beside the answer

    def result(self):
        """The engine's result (Ranking, ServingRanking) this answer was built from."""
        pickled = self._built_here.get(RESULT) or cache.derived(
            self.tag, RESULT, lambda: pickle.dumps(self._rebuild(), pickle.HIGHEST_PROTOCOL)
        )
        return pickle.loads(pickled)  # written by this process or a peer worker, never by a client

    @property
    def json(self) -> bytes:
        """The API's answer as JSON (for a client that does not take gzip)."""
        return gzip.decompress(self.json_gzip)

    @property
    def data(self) -> dict:
        """The API's answer as data (for a renderer other than JSON: CSV, the browsable API)."""
        return json.loads(self.json)

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
        empty_reason = why_empty(question, result)
        data = serializer_class(result, context={"empty_reason": empty_reason}).data
        pickled = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        # Kept gzipped: what most clients take (browsers, requests, curl --compressed), and a tenth of the bytes to
        # read from the cache and send (a serving ranking of 360 fronts is over 1 MB of JSON).
        json_gzip = gzip.compress(JSONRenderer().render(data), compresslevel=6, mtime=0)
        return cache.WithParts({"json_gzip": json_gzip, "empty_reason": empty_reason}, {RESULT: pickled})

    found = cache.cached_with_tag({"engine": engine, **question.cache_key()}, build)
    value = found.value
    return Answer(value["json_gzip"], value["empty_reason"], found.tag, found.parts, lambda: answer(question))


class AnswerResponse(Response):
    """A cached answer as the API sends it: its JSON bytes as rendered when it was built, sent as they are when JSON
    (compact, as DRF renders by default) is asked for, gzipped to a client that accepts gzip; any other renderer
    (CSV, the browsable API, an indented JSON) renders the answer's data as usual. `data` is read from the JSON
    only when something asks for it."""

    def __init__(self, answer: Answer, **kwargs):
        self._answer, self._data = answer, None
        super().__init__(None, **kwargs)

    @property
    def data(self):
        if self._data is None:
            self._data = self._answer.data
        return self._data

    @data.setter
    def data(self, value):
        self._data = value

    @property
    def rendered_content(self):
        renderer = getattr(self, "accepted_renderer", None)
        as_rendered = type(renderer) is JSONRenderer and "indent" not in (self.accepted_media_type or "")
        if not as_rendered:
            return super().rendered_content
        self["Content-Type"] = renderer.media_type
        patch_vary_headers(self, ["Accept-Encoding"])
        request = (getattr(self, "renderer_context", None) or {}).get("request")
        if request is not None and accepts_gzip.search(request.META.get("HTTP_ACCEPT_ENCODING", "")):
            self["Content-Encoding"] = "gzip"
            return self._answer.json_gzip
        return self._answer.json
