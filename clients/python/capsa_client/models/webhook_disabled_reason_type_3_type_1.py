from typing import Literal

WebhookDisabledReasonType3Type1 = Literal["disabled", "failing"]

WEBHOOK_DISABLED_REASON_TYPE_3_TYPE_1_VALUES: set[WebhookDisabledReasonType3Type1] = {
    "disabled",
    "failing",
}


def check_webhook_disabled_reason_type_3_type_1(value: str) -> WebhookDisabledReasonType3Type1:
    if value in WEBHOOK_DISABLED_REASON_TYPE_3_TYPE_1_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {WEBHOOK_DISABLED_REASON_TYPE_3_TYPE_1_VALUES!r}")
