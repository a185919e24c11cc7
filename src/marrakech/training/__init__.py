"""Training by self-play: ``marrakech train`` (:mod:`marrakech.training.trainer`).

Self-play games of the compiled Gumbel search (:mod:`marrakech.fast.gumbel_kernels`)
with a policy and value network (:mod:`marrakech.fast.az_network`), trained in numpy
generation by generation and rated against the ladder's reference bots; a generation
plays as the bot ``az@weights=FILE.npz``. Needs numpy and Numba (the ``fast`` extra).
"""
