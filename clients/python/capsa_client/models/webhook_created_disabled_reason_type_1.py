from typing import Literal

WebhookCreatedDisabledReasonType1 = Literal["disabled", "failing"]

WEBHOOK_CREATED_DISABLED_REASON_TYPE_1_VALUES: set[WebhookCreatedDisabledReasonType1] = {
    "disabled",
    "failing",
}


def check_webhook_created_disabled_reason_type_1(value: str) -> WebhookCreatedDisabledReasonType1:
    if value in WEBHOOK_CREATED_DISABLED_REASON_TYPE_1_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {WEBHOOK_CREATED_DISABLED_REASON_TYPE_1_VALUES!r}")
