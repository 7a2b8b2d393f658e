from typing import Literal

WebhookEventsItem = Literal["*", "banting.game.finished", "round.settled", "round.voided"]

WEBHOOK_EVENTS_ITEM_VALUES: set[WebhookEventsItem] = {
    "*",
    "banting.game.finished",
    "round.settled",
    "round.voided",
}


def check_webhook_events_item(value: str) -> WebhookEventsItem:
    if value in WEBHOOK_EVENTS_ITEM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {WEBHOOK_EVENTS_ITEM_VALUES!r}")
