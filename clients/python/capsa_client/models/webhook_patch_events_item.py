from typing import Literal

WebhookPatchEventsItem = Literal["*", "banting.game.finished", "round.settled", "round.voided"]

WEBHOOK_PATCH_EVENTS_ITEM_VALUES: set[WebhookPatchEventsItem] = {
    "*",
    "banting.game.finished",
    "round.settled",
    "round.voided",
}


def check_webhook_patch_events_item(value: str) -> WebhookPatchEventsItem:
    if value in WEBHOOK_PATCH_EVENTS_ITEM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {WEBHOOK_PATCH_EVENTS_ITEM_VALUES!r}")
