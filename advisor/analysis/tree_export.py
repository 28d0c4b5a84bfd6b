"""A search tree as a networkx graph, written as GraphML for inspection (`best-move --tree`)."""

from __future__ import annotations

from typing import Hashable

import networkx as nx

from positions.kernel.actions import action_from_code
from positions.files import write_atomically
from search.request import SearchTree


def tree_graph(tree: SearchTree, root: Hashable) -> nx.MultiDiGraph:
    """Nodes are information sets (player, visits); edges are actions walked from one to the next,
    with the action's visits and mean win at the parent and how often the edge was walked."""
    graph = nx.MultiDiGraph()  # two actions may lead to the same information set
    ids = {key: f"n{i}" for i, key in enumerate(sorted(tree.nodes, key=lambda k: k != root))}
    for key, stats in tree.nodes.items():
        player = key[0] if isinstance(key, tuple) and key and isinstance(key[0], int) else -1
        graph.add_node(ids[key], player=player, visits=int(sum(v for v, _ in stats.values())),
                       root=key == root)
    for (parent, action, child), walked in tree.edges.items():
        visits, value = tree.nodes[parent].get(action, (0.0, 0.0))
        graph.add_edge(ids[parent], ids[child], action=str(action_from_code(action)),
                       walked=walked, visits=int(visits),
                       win=round(value / visits, 6) if visits else 0.0)
    return graph


def write_tree(tree: SearchTree, root: Hashable, path: str) -> nx.MultiDiGraph:
    """Write the tree as GraphML.

    Raises:
        FileWriteError: the file cannot be written (not a regular file, read-only, ...).
    """
    graph = tree_graph(tree, root)
    text = "\n".join(nx.generate_graphml(graph)) + "\n"
    write_atomically(path, text)  # regular files only, replaced atomically, permissions kept
    return graph
