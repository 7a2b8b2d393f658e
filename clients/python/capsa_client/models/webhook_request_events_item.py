from typing import Literal

WebhookRequestEventsItem = Literal["*", "banting.game.finished", "round.settled", "round.voided"]

WEBHOOK_REQUEST_EVENTS_ITEM_VALUES: set[WebhookRequestEventsItem] = {
    "*",
    "banting.game.finished",
    "round.settled",
    "round.voided",
}


def check_webhook_request_events_item(value: str) -> WebhookRequestEventsItem:
    if value in WEBHOOK_REQUEST_EVENTS_ITEM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {WEBHOOK_REQUEST_EVENTS_ITEM_VALUES!r}")
