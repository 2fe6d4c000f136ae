"""Rules about a distributed run, where every rank has its own workers: the sampler's shuffle must
change with the epoch (DLP017), and each rank needs a seed of its own (DLP018)."""

from __future__ import annotations

import ast

from .facts import Hits, ModuleFacts, called, dotted, mentions
from .registry import rule

CASE = "19_distributed_ranks_workers"


@rule(
    "DLP017",
    "sampler-epoch-not-set",
    CASE,
    "DistributedSampler without set_epoch(epoch): every epoch repeats the same order",
    about_workers=False,
)
def dlp017(facts: ModuleFacts) -> Hits:
    """A shuffling DistributedSampler whose set_epoch() is never called (on its name, or on a
    loader's `.sampler`): it shuffles with the same seed every epoch."""
    epochs_set = {dotted(c.func.value) for c in facts.calls if called(c).endswith(".set_epoch")}
    for node in ast.walk(facts.tree):
        if isinstance(node, ast.Assign) and called(node.value).split(".")[-1] == "DistributedSampler":
            shuffle = next((k.value for k in node.value.keywords if k.arg == "shuffle"), None)
            if isinstance(shuffle, ast.Constant) and shuffle.value is False:
                continue
            names = {dotted(t) for t in node.targets}
            if not names & epochs_set and not any(n.endswith(".sampler") for n in epochs_set):
                yield node.value, {}


@rule(
    "DLP018",
    "same-seed-on-every-rank",
    CASE,
    "the same torch.manual_seed on every rank: ranks repeat each other's augmentations",
    about_workers=False,
)
def dlp018(facts: ModuleFacts) -> Hits:
    """torch.manual_seed() with a seed that does not mention the rank, in a function that joins a
    process group: every rank seeds alike (`torch.manual_seed(args.seed)`)."""
    for function in facts.functions:
        joins = any(called(n).endswith("init_process_group") for n in ast.walk(function))
        for node in ast.walk(function) if joins else ():
            if called(node) == "torch.manual_seed" and node.args and not mentions(node.args[0], "rank"):
                yield node, {}
