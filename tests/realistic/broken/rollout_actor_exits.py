"""An actor process plays episodes and queues each rollout's tensors for the learner, then
returns; the learner joins the actor, then learns from the queue. On Linux the first `get()` fails
in `rebuild_storage_fd` (`ConnectionRefusedError` or `FileNotFoundError`): the tensors are handles
to the actor's shared memory, handed over by the actor, which has exited.

Source: written for this set after pytorch/pytorch issues 1551 and 9127 and
Megvii-BaseDetection/YOLOX issue 1249 (`ConnectionResetError` / `ConnectionRefusedError` in
`rebuild_storage_fd`, a producer process that ended while its tensors were queued); not copied
from a project.

pitfalls: 22
risks:
"""

import torch
import torch.multiprocessing as mp
from torch import nn


def act(policy, rollouts, episodes):
    torch.manual_seed(0)
    for _ in range(episodes):
        states = torch.randn(32, 4)
        with torch.no_grad():
            actions = policy(states).argmax(dim=1)
        rewards = (actions == 1).float()
        rollouts.put((states, actions, rewards))


def learn(policy, rollouts, episodes):
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    for episode in range(episodes):
        states, actions, rewards = rollouts.get()
        logits = policy(states)
        loss = -(nn.functional.log_softmax(logits, dim=1)[range(len(actions)), actions] * rewards).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"episode {episode}: reward {rewards.mean().item():.2f}")


def main():
    policy = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    policy.share_memory()
    rollouts = mp.Queue()
    actor = mp.Process(target=act, args=(policy, rollouts, 8))
    actor.start()
    actor.join()  # a full batch of episodes before learning
    learn(policy, rollouts, 8)


if __name__ == "__main__":
    main()
