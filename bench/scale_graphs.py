#!/usr/bin/env python3
"""scale_graphs.py - large training graphs in Checkmate's JSON format.

Writes graphs that remat-translate --import-graph-json reads, for timing the
whole remat-opt pipeline at scale (bench/scale_pipeline.py):
- residual: a training step of L forward layers in which every fourth layer
  also reads the output of the layer four back (a ResNet-like residual edge),
  a loss, and a backward pass whose gradient node of each layer reads the
  layer's input and output, the next gradient and, across a residual edge,
  the gradient of the layer that read it (about 2L nodes);
- chain: the same without residual edges.
Sizes are drawn from a seeded generator, so a graph is the same on every run.

Usage: bench/scale_graphs.py {residual,chain} NODES OUTPUT.json [--seed N]
"""

import argparse
import json
import random


def training_graph(layers, residual_every, seed):
    rng = random.Random(seed)
    nodes, links = [], []

    def node(name, backward, cost, size):
        nodes.append({"id": len(nodes), "name": name, "backward": backward,
                      "cost_cpu": cost, "cost_ram": size})
        return len(nodes) - 1

    def link(source, target):
        links.append({"source": source, "target": target})

    forward = [node("input", False, 1, rng.randint(1 << 16, 1 << 20))]
    for layer in range(1, layers + 1):
        current = node(f"layer{layer}", False, rng.randint(1, 100),
                       rng.randint(1 << 16, 1 << 20))
        link(forward[-1], current)
        if residual_every and layer % residual_every == 0 and layer > residual_every:
            link(forward[layer - residual_every], current)
        forward.append(current)
    loss = node("loss", False, 1, 4)
    link(forward[-1], loss)
    gradient = {}
    upstream = loss
    for layer in range(layers, 0, -1):
        grad = node(f"layer{layer}.grad", True, rng.randint(1, 200),
                    nodes[forward[layer - 1]]["cost_ram"])
        link(upstream, grad)
        link(forward[layer - 1], grad)
        link(forward[layer], grad)
        reader = layer + residual_every if residual_every else None
        if reader and reader <= layers and reader % residual_every == 0 \
                and reader > residual_every:
            link(gradient[reader], grad)
        gradient[layer] = grad
        upstream = grad
    return {"directed": True, "multigraph": False, "graph": {},
            "nodes": nodes, "links": links}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=["residual", "chain"])
    parser.add_argument("nodes", type=int, help="about this many nodes in all")
    parser.add_argument("output")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    layers = max(1, (args.nodes - 2) // 2)
    graph = training_graph(layers, 4 if args.kind == "residual" else 0, args.seed)
    with open(args.output, "w") as out:
        json.dump(graph, out)


if __name__ == "__main__":
    main()
