"""Figures (matplotlib, imported only when a figure is drawn) saved as PNG."""
