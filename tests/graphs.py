"""Import graphs for the architecture tests: the cycles of a graph."""

from __future__ import annotations

__all__ = ["cycles"]


def cycles(graph: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """Cycles of ``graph`` (node -> the nodes it points to), each from its smallest node: one
    per back edge of a depth-first walk, so there is at least one whenever the graph has a
    cycle (a walk that lists every cycle takes exponential time)."""
    out, path, done = set(), [], set()

    def walk(node):
        if node in path:
            cycle = path[path.index(node):]
            start = cycle.index(min(cycle))
            out.add(tuple(cycle[start:] + cycle[:start]))
            return
        if node in done:
            return
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            walk(nxt)
        path.pop()
        done.add(node)

    for node in sorted(graph):
        walk(node)
    return out
