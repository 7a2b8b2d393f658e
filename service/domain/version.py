"""The engine's version, stored with every round so an auditor knows what scored it."""

ENGINE_VERSION = "1.0.0"
