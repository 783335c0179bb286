"""Adaptive, cost-aware evaluation.

Gittins indices, UCB-E and UCB-E-LRF behind one policy protocol, and the simulation
harness that runs any policy following it.
"""
