"""The engine's version, stored with every round so an auditor knows what scored it.

A release that changes how any round scores raises it. The versions before it stay in
`rescoring.RESCORES` while the release still scores their rounds exactly as they were
scored: a stored round is re-scored and compared under its own version.
"""

ENGINE_VERSION = "1.0.0"
