from typing import Literal

EventSubscription = Literal["*", "banting.game.finished", "round.settled", "round.voided"]

EVENT_SUBSCRIPTION_VALUES: set[EventSubscription] = {
    "*",
    "banting.game.finished",
    "round.settled",
    "round.voided",
}


def check_event_subscription(value: str) -> EventSubscription:
    if value in EVENT_SUBSCRIPTION_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {EVENT_SUBSCRIPTION_VALUES!r}")
