"""Drop-in replacements for other libraries' APIs, computed by logz.

logz.compat.pymbar: pymbar 3's MBAR, BAR, BARoverlap, BARzero, EXP and EXPGauss.
"""
