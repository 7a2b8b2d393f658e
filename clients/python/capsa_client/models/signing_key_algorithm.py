from typing import Literal

SigningKeyAlgorithm = Literal["Ed25519"]

SIGNING_KEY_ALGORITHM_VALUES: set[SigningKeyAlgorithm] = {
    "Ed25519",
}


def check_signing_key_algorithm(value: str) -> SigningKeyAlgorithm:
    if value in SIGNING_KEY_ALGORITHM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SIGNING_KEY_ALGORITHM_VALUES!r}")
