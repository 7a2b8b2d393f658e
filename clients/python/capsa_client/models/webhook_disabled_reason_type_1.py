from typing import Literal

WebhookDisabledReasonType1 = Literal["disabled", "failing"]

WEBHOOK_DISABLED_REASON_TYPE_1_VALUES: set[WebhookDisabledReasonType1] = {
    "disabled",
    "failing",
}


def check_webhook_disabled_reason_type_1(value: str) -> WebhookDisabledReasonType1:
    if value in WEBHOOK_DISABLED_REASON_TYPE_1_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {WEBHOOK_DISABLED_REASON_TYPE_1_VALUES!r}")
