"""Purchase advice grouped by accelerator and cost basis: the best option of each, the rest on demand.

One question about a workload can be answered by many ranked rows of one accelerator (each published system,
each measured configuration), sized and priced alike: 66 near-duplicate options for llama2-70b on the shipped
data. A buyer chooses an accelerator and a way to pay for it (the cost basis: the price kind, at the plan's one
maximum utilization), so the advice lists one option per (accelerator, cost basis): the first of that group in
the plan's own order, which is cheapest per month first (`recommendations.recommend`). The others are counted
beside it (`group_size`) and listed when asked for, never dropped silently.
"""

from dataclasses import dataclass

from accounting.recommendations import Option

GROUPED_BY = "accelerator and cost basis (price kind)"


@dataclass(frozen=True)
class ShownOption:
    """An option as the advice lists it: with the size of its (accelerator, cost basis) group and whether it is
    the group's best (its first in the plan's order)."""

    option: Option
    group_size: int
    best_in_group: bool


def group_key(option: Option) -> tuple[int, str]:
    """(accelerator, cost basis): the accelerator's id and the price kind the option is priced under."""
    return option.row.accelerator.pk, option.row.price.kind


def shown_options(options: list[Option], *, all_options: bool = False) -> list[ShownOption]:
    """The best option of each (accelerator, cost basis), in the plan's order; with `all_options`, every option
    in that order, each saying whether it is its group's best."""
    sizes: dict[tuple[int, str], int] = {}
    for option in options:
        sizes[group_key(option)] = sizes.get(group_key(option), 0) + 1
    seen: set[tuple[int, str]] = set()
    shown = []
    for option in options:
        key = group_key(option)
        best = key not in seen
        seen.add(key)
        if best or all_options:
            shown.append(ShownOption(option, sizes[key], best))
    return shown
