"""Rubrics: weighted categories from graded scores.

Schemas, their expressions, and the comparison of schemata.
"""
