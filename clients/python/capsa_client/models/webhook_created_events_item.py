from typing import Literal

WebhookCreatedEventsItem = Literal["*", "banting.game.finished", "round.settled", "round.voided"]

WEBHOOK_CREATED_EVENTS_ITEM_VALUES: set[WebhookCreatedEventsItem] = {
    "*",
    "banting.game.finished",
    "round.settled",
    "round.voided",
}


def check_webhook_created_events_item(value: str) -> WebhookCreatedEventsItem:
    if value in WEBHOOK_CREATED_EVENTS_ITEM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {WEBHOOK_CREATED_EVENTS_ITEM_VALUES!r}")
