"""Minimising a loss by its gradient (docs/python.md, "Gradients"): L-BFGS-B from SciPy where it is installed, else
our own Adam (Kingma, Ba 2015).

    def fun(x):
        sim.set_parameter("pd_bodies.ball.youngs_modulus", str(x[0]))
        r = sim.loss_and_grad(loss, wrt=["pd_bodies.ball.youngs_modulus"])
        return r["loss"], r["gradient"]

    result = ductile.optimize(fun, [5e4], bounds=[(1e3, 1e6)])
"""
import numpy as np


def _scipy_minimize():
    try:
        from scipy.optimize import minimize  # noqa: PLC0415 (optional dependency)
    except ImportError:
        return None
    return minimize


def optimize(fun, x0, bounds=None, method=None, max_iterations=100, learning_rate=None, tolerance=1e-10):
    """Minimises fun(x) -> (loss, gradient) from x0.

    bounds: a (low, high) pair per entry (None for an open end), or None. method: 'lbfgsb' (SciPy's L-BFGS-B; raises
    ImportError without SciPy), 'adam' (our own: step learning_rate, by default 1% of max(|x0|, 1) per entry, projected
    onto the bounds), or None (L-BFGS-B where SciPy is installed, else Adam). Stops after max_iterations, or when the
    loss changes by less than tolerance relative. Returns {'x', 'loss', 'history' (the loss of every evaluation),
    'method', 'evaluations'}.
    """
    x0 = np.asarray(x0, dtype=float).copy()
    history = []

    def evaluate(x):
        loss, gradient = fun(np.asarray(x, dtype=float))
        history.append(float(loss))
        return float(loss), np.asarray(gradient, dtype=float)

    minimize = _scipy_minimize()
    chosen = method or ("lbfgsb" if minimize is not None else "adam")
    if chosen == "lbfgsb":
        if minimize is None:
            raise ImportError("method='lbfgsb' needs SciPy (python3-scipy); method='adam' does without")
        result = minimize(evaluate, x0, jac=True, method="L-BFGS-B", bounds=bounds,
                          options={"maxiter": max_iterations, "ftol": tolerance})
        return {"x": np.asarray(result.x), "loss": float(result.fun), "history": history, "method": chosen,
                "evaluations": len(history)}
    if chosen != "adam":
        raise ValueError(f"unknown method '{chosen}' (lbfgsb or adam)")
    low = np.array([-np.inf if b is None or b[0] is None else b[0] for b in (bounds or [None] * len(x0))])
    high = np.array([np.inf if b is None or b[1] is None else b[1] for b in (bounds or [None] * len(x0))])
    rate = np.full(len(x0), 0.01) * np.maximum(np.abs(x0), 1.0) if learning_rate is None else \
        np.broadcast_to(np.asarray(learning_rate, dtype=float), x0.shape)
    beta1, beta2, eps = 0.9, 0.999, 1e-12
    m = np.zeros_like(x0)
    v = np.zeros_like(x0)
    x = np.clip(x0, low, high)
    best_x, best_loss = x.copy(), np.inf
    previous = None
    for k in range(1, max_iterations + 1):
        loss, gradient = evaluate(x)
        if loss < best_loss:
            best_x, best_loss = x.copy(), loss
        if previous is not None and abs(previous - loss) <= tolerance * max(abs(previous), 1e-300):
            break
        previous = loss
        m = beta1 * m + (1 - beta1) * gradient
        v = beta2 * v + (1 - beta2) * gradient**2
        step = rate * (m / (1 - beta1**k)) / (np.sqrt(v / (1 - beta2**k)) + eps)
        x = np.clip(x - step, low, high)
    return {"x": best_x, "loss": best_loss, "history": history, "method": chosen, "evaluations": len(history)}
