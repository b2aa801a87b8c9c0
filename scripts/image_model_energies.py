"""Energies of the image models in numpy, as logz defines them (docs/hais.md), for
scripts/fit-image-models (training needs their gradients) and scripts/reproduce/hais-table1
(per-patch log-likelihoods of the analysis models, checked against logz's mean energy).
Rows of X are data points."""
import numpy as np


def softplus(y):
    return np.logaddexp(0.0, y)


def sigmoid(y):
    return 0.5 * (1.0 + np.tanh(0.5 * y))


# Expert: (f, f') with the expert's energy lambda f(u) (docs/hais.md).
EXPERTS = {"laplace": (np.abs, np.sign),
           "student_t": (lambda u: np.log1p(u * u), lambda u: 2.0 * u / (1.0 + u * u))}


def poe_energy(X, phi, lam, expert):
    """Product of experts: sum_l lambda_l f(Phi_l x), f = abs (Laplace) or log(1 + u^2)."""
    return EXPERTS[expert][0](X @ phi.T) @ lam


def mcrbm_parts(X, p):
    """The mcRBM's intermediate arrays (squared_norm = "sum", sigma = 1; docs/hais.md):
    F = C x, n = |x|^2 + 1/2, Q = F^2 / n, Y = P^T Q / 2 + b_c, Z = W x + b_m."""
    F = X @ p["C"].T
    n = np.sum(X * X, axis=1) + 0.5
    Q = F * F / n[:, None]
    Y = Q @ p["P"] / 2 + p["b_c"]
    Z = X @ p["W"].T + p["b_m"]
    return F, n, Q, Y, Z


def mcrbm_energy_of_parts(X, Y, Z, p):
    return -softplus(Y).sum(1) - softplus(Z).sum(1) + 0.5 * np.sum(X * X, axis=1) - X @ p["b_v"]


def mcrbm_energy(X, p):
    _, _, _, Y, Z = mcrbm_parts(X, p)
    return mcrbm_energy_of_parts(X, Y, Z, p)


def mcrbm_energy_grad(X, p):
    """Energies and dE/dx of a batch."""
    F, n, Q, Y, Z = mcrbm_parts(X, p)
    R = sigmoid(Y) @ p["P"].T
    grad = (-((R * F) @ p["C"]) / n[:, None] + X * (np.sum(R * F * F, axis=1) / n**2)[:, None]
            - sigmoid(Z) @ p["W"] + X - p["b_v"])
    return mcrbm_energy_of_parts(X, Y, Z, p), grad


def mcrbm_parameter_grads(X, p):
    """Mean over the batch of dE/dtheta for every parameter theta of the mcRBM."""
    F, n, Q, Y, Z = mcrbm_parts(X, p)
    sc, sm = sigmoid(Y), sigmoid(Z)
    R = sc @ p["P"].T
    b = len(X)
    return {"P": -0.5 * (Q.T @ sc) / b, "C": -((R * F / n[:, None]).T @ X) / b, "b_c": -sc.mean(0),
            "W": -(sm.T @ X) / b, "b_m": -sm.mean(0), "b_v": -X.mean(0)}
