"""Match the accelerator a published system names to a catalog part (Django-free).

Submitters spell one part many ways ("NVIDIA H100-SXM-80GB", "NVIDIA H100 80GB HBM3",
"Virtualized NVIDIA H200-SXM-141GB", "NVIDIA H200-SXM-141GB-CTS", "AMD Instinct
MI300X-NPS1-SPX-192GB-750W"). A name is read as words, by rules rather than a list of spellings:

- vendor and marketing words (NVIDIA, AMD, Instinct, GeForce, (R), (TM), ...) carry no identity; edition words
  ("Server Edition") choose only between parts that differ by them;
- a memory size ("80GB", "64G", "96Gi") and the memory type (HBM3e, GDDR6) pick between sizes of
  one part; when the name has none, the system description's ``accelerator_memory_capacity`` does;
- a form factor (SXM/SXM5, PCIe, NVL) picks between forms; none named means the SXM part, the form
  MLPerf datacenter systems use unless they say otherwise;
- variants of one part are recorded, never matched on: a power limit ("750W", MaxQ), a custom
  thermal solution ("CTS"), virtualisation ("Virtualized", vGPU), partition modes (NPS1, SPX, CPX);
- what remains are model words; the model-number words (those with a digit) must be the same set on
  both sides, and the other words may be missing on one side but not differ on both.

``ALIASES`` holds only what no rule can know (a product renamed between the logs and the catalog).
A name listing several parts ("A (x16), B (x8)") is a mixed system: one part if every entry is the
same part, otherwise not importable as one accelerator.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Product names that changed between result logs and vendors' catalogs (lower-case words -> catalog words).
ALIASES = {
    "tpu v6": "tpu v6e trillium",
}
_NOISE = {
    "nvidia", "amd", "intel", "google", "instinct", "geforce", "tesla", "accelerator", "gpu", "gpus", "card",
    "per", "processor", "cpu", "only", "system", "socket", "core", "cores", "module", "r", "tm", "the",
    "grace", "hopper", "superchip", "gracehopper", "untetherai", "qualcomm", "ms", "gen", "generation",
    "nvl72",
}  # fmt: skip
# Words that name an edition of one part (RTX PRO 4500 Blackwell card vs its Server Edition): never model words, but
# between two catalog parts that differ only by them, the name's own edition words choose.
_EDITION_WORDS = {"server", "edition"}
_FORMS = {"sxm": "sxm", "sxm2": "sxm", "sxm4": "sxm", "sxm5": "sxm", "sxm6": "sxm", "pcie": "pcie", "nvl": "nvl"}
_VARIANT_PATTERNS = (
    (re.compile(r"^(maxq|max-q)$"), "power-limited (MaxQ)"),
    (re.compile(r"^\d+w$"), "power limit {word}"),
    (re.compile(r"^cts$"), "custom thermal solution (CTS)"),
    (re.compile(r"^(virtualized|virtualised|virtual|vgpu)$"), "virtualized"),
    (re.compile(r"^(nps\d|spx|dpx|qpx|cpx)$"), "partition mode {word}"),
    (re.compile(r"^tgp$"), ""),
)
_MEMORY_TYPE = re.compile(r"^(hbm\d?e?|gddr\d+x?|lpddr\d+x?|ddr\d)$")
_MEMORY = re.compile(r"^(\d+(?:\.\d+)?)(gb|g|gib|gi)$")
_COUNT_WORD = re.compile(r"^(x|x\d+|\d+x)$")  # "x 8", "x8", "8x": a count of parts, not a model
_ORDINAL = re.compile(r"^\d+(st|nd|rd|th)$")
_COUNT_SUFFIX = re.compile(r"\(\s*x\s*\d+(?:\s*x\s*\d+)*\s*\)", re.IGNORECASE)
# Between the parts of a mixed system: a comma outside parentheses, '+', '&' or the word 'and'.
_JOINED_PARTS = re.compile(r"\s\+\s|\s&\s|\sand\s", re.IGNORECASE)
_PART_SEPARATOR = re.compile(r",(?![^()]*\))|\s\+\s|\s&\s|\sand\s", re.IGNORECASE)


@dataclass(frozen=True)
class ParsedName:
    model_words: frozenset[str]
    numbers: frozenset[str]  # model-number words (with a digit)
    memory_gb: float | None
    form: str | None
    variants: tuple[str, ...]
    editions: frozenset[str] = frozenset()


def _words(name: str) -> list[str]:
    text = re.sub(r"\((r|tm)\)", " ", name.lower())
    text = re.sub(r"(\d)\s+(gb|gib|g)\b", r"\1\2", text)  # "80 GB" -> "80gb"
    text = re.sub(r"(\d+)\s*w\b", r"\1w", text)  # "1000 W" -> "1000w"
    words = re.findall(r"[a-z0-9+.]+", text.replace("max-q", "maxq"))
    joined = " ".join(w.strip(".") for w in words if w.strip("."))
    for alias, canonical in ALIASES.items():
        joined = re.sub(rf"\b{re.escape(alias)}\b", canonical, joined)
    return joined.split()


def parse_name(name: str) -> ParsedName:
    model, variants, memory, form, editions = set(), [], None, None, set()
    previous = None  # the last model word, while the next word may still be its number
    for word in _words(name):
        if previous and word.isdigit() and len(word) < 3:
            model.discard(previous)  # "Gaudi 2" is one model word like "Gaudi2"; "Ryzen 9" like "Ryzen9"
            model.add(previous + word)
            previous = None
            continue
        previous = None
        if word in _EDITION_WORDS:
            editions.add(word)
            continue
        if word in _NOISE or _MEMORY_TYPE.match(word) or _COUNT_WORD.match(word):
            continue
        if word in _FORMS:
            form = form or _FORMS[word]
            continue
        memory_match = _MEMORY.match(word)
        if memory_match:
            memory = memory or float(memory_match.group(1))
            continue
        variant = next((label for pattern, label in _VARIANT_PATTERNS if pattern.match(word)), None)
        if variant is not None:
            if variant:
                variants.append(variant.format(word=word.upper()))
            continue
        if word.isdigit() and len(word) < 3 or _ORDINAL.match(word):
            continue  # "2 GPUs", "16-Core", "13th Gen": counts and generations, not model numbers
        model.add(word)
        previous = word if word.isalpha() else None
    numbers = frozenset(w for w in model if any(c.isdigit() for c in w))
    return ParsedName(frozenset(model), numbers, memory, form, tuple(variants), frozenset(editions))


@dataclass(frozen=True)
class CatalogPart:
    key: object  # the caller's handle (an Accelerator pk)
    name: str  # "vendor model"
    memory_gb: float | None
    kind: str  # "gpu", "cpu", "accelerator"


@dataclass(frozen=True)
class Match:
    part: CatalogPart | None
    variants: tuple[str, ...] = ()
    problem: str = ""


def split_mixed(name: str) -> list[tuple[str, int | None]]:
    """The parts a system's accelerator name lists: 'A (x16), B (x8)', 'A + B', 'A (x2x8) and B (x2x8)' ->
    [(name, count or None), ...]; a plain name -> [(name, None)]. Counts may be nodes x parts ('x2x8' is 16)."""
    entries = []
    # A comma separates parts only in the counted form ('A (x16), B (x8)'); elsewhere it may be part of one name.
    separator = _PART_SEPARATOR if _COUNT_SUFFIX.search(name) else _JOINED_PARTS
    for chunk in separator.split(name):
        count = _COUNT_SUFFIX.search(chunk)
        number = None
        if count:
            number = 1
            for factor in re.findall(r"\d+", count.group(0)):
                number *= int(factor)
        entries.append((_COUNT_SUFFIX.sub("", chunk).strip(), number))
    return [entry for entry in entries if entry[0]] or [(name, None)]


_PARENTHESES = re.compile(r"\s*\([^()]*\)")


class Matcher:
    """A catalog name's parentheses qualify it ('Vera Rubin (VR200, per GPU, NVL72)', 'Radeon 8060S Graphics (Ryzen
    AI Max+ 395 ...)'): a published name matches the part by its whole name or by the name outside them."""

    def __init__(self, parts: list[CatalogPart]):
        self._parts = [(part, parse_name(part.name)) for part in parts]
        self._parts += [
            (part, parse_name(_PARENTHESES.sub("", part.name))) for part in parts if _PARENTHESES.search(part.name)
        ]

    def match(self, name: str, *, memory_hint_gb: float | None = None, kind: str | None = None) -> Match:
        wanted = parse_name(name)
        if not wanted.model_words:
            return Match(None, problem=f"'{name}' names no model")
        memory = wanted.memory_gb or memory_hint_gb
        candidates: list[tuple[CatalogPart, ParsedName]] = []
        for part, parsed in self._parts:
            if kind and (part.kind == "cpu") != (kind == "cpu"):
                continue
            if parsed.numbers != wanted.numbers or not parsed.numbers and parsed.model_words != wanted.model_words:
                continue
            if (wanted.model_words - parsed.model_words) and (parsed.model_words - wanted.model_words):
                continue  # e.g. speedAI240 Preview vs speedAI240 Slim
            if all(part.key != seen.key for seen, _ in candidates):  # a part once, by its whole name first
                candidates.append((part, parsed))
        if not candidates:
            return Match(None, wanted.variants, problem="not in the catalog")
        chosen = self._narrow(candidates, wanted, memory)
        if len(chosen) != 1:
            names = ", ".join(sorted(part.name for part, _ in chosen))
            return Match(None, wanted.variants, problem=f"ambiguous between {names}")
        part, parsed = chosen[0]
        variants = list(wanted.variants)
        part_memory = parsed.memory_gb or part.memory_gb
        if memory and part_memory and abs(memory - part_memory) / part_memory > 0.1:
            variants.append(f"memory {memory:g} GB")
        return Match(part, tuple(v for v in variants if v not in parsed.variants))

    @staticmethod
    def _narrow(candidates, wanted: ParsedName, memory: float | None):
        def keep(rows, test):
            kept = [row for row in rows if test(row)]
            return kept or rows

        rows = keep(candidates, lambda row: row[1].editions == wanted.editions)
        form = wanted.form or "sxm"
        rows = keep(rows, lambda row: row[1].form == form or (row[1].form is None and not wanted.form))
        if memory:
            rows = keep(rows, lambda row: _close(row[1].memory_gb or row[0].memory_gb, memory))
        rows = keep(rows, lambda row: not row[1].variants)  # a variant maps to its base part
        rows = keep(rows, lambda row: row[1].model_words == wanted.model_words)
        return rows


def _close(a: float | None, b: float) -> bool:
    return a is not None and abs(a - b) / b <= 0.1
