from typing import Literal

WebhookCreatedDisabledReasonType3Type1 = Literal["disabled", "failing"]

WEBHOOK_CREATED_DISABLED_REASON_TYPE_3_TYPE_1_VALUES: set[WebhookCreatedDisabledReasonType3Type1] = {
    "disabled",
    "failing",
}


def check_webhook_created_disabled_reason_type_3_type_1(value: str) -> WebhookCreatedDisabledReasonType3Type1:
    if value in WEBHOOK_CREATED_DISABLED_REASON_TYPE_3_TYPE_1_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {WEBHOOK_CREATED_DISABLED_REASON_TYPE_3_TYPE_1_VALUES!r}"
    )
