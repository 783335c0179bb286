"""Adaptive, cost-aware evaluation.

Gittins indices, UCB-E and UCB-E-LRF behind one policy protocol, and the simulation
harness that runs any policy following it.

* :mod:`.protocol`: :class:`Proposal` and the :class:`Policy` protocol (``init``,
  ``propose``, ``observe``, ``recommend``; immutable states);
* :mod:`.gittins` (:class:`GittinsPolicy`, Xie, He and Cao, "Efficient Cost-Aware LLM
  Evaluation via Bayesian Bandit Gittins Indices") with its root schedules in
  :mod:`.gittins_index`;
* :mod:`.ucbe` (:class:`UCBEPolicy`, Audibert, Bubeck and Munos, "Best Arm Identification in
  Multi-Armed Bandits") and :mod:`.lrf` (:class:`LRFPolicy`, Zhou et al., "On Speeding Up
  Language Model Evaluation");
* :mod:`.simulation`: simple regret of any policies on a response matrix;
  :mod:`.synthetic`: response matrices that mimic the Gittins paper's benchmarks.
"""

from bayes_eval.adaptive.gittins import GittinsPolicy
from bayes_eval.adaptive.lrf import LRFPolicy
from bayes_eval.adaptive.protocol import Policy, Proposal
from bayes_eval.adaptive.ucbe import UCBEPolicy

__all__ = ["GittinsPolicy", "LRFPolicy", "Policy", "Proposal", "UCBEPolicy"]
