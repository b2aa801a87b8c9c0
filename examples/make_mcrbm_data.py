#!/usr/bin/env python3
"""Writes mcrbm-data.npy: 200 points in 16 dimensions, i.i.d. N(0, 1) (numpy seed 2011), a
stand-in for whitened PCA components of image patches (the paper's data are whitened: unit
variance per component). The test set of `logz loglik examples/mcrbm.toml` and the data the
fitted base of that example is fitted to."""
import os

import numpy as np

N, M, SEED = 200, 16, 2011

rng = np.random.default_rng(SEED)
np.save(os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcrbm-data.npy"), rng.standard_normal((N, M)))
