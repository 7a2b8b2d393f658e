from typing import Literal

WebhookDisabledReasonType2Type1 = Literal["disabled", "failing"]

WEBHOOK_DISABLED_REASON_TYPE_2_TYPE_1_VALUES: set[WebhookDisabledReasonType2Type1] = {
    "disabled",
    "failing",
}


def check_webhook_disabled_reason_type_2_type_1(value: str) -> WebhookDisabledReasonType2Type1:
    if value in WEBHOOK_DISABLED_REASON_TYPE_2_TYPE_1_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {WEBHOOK_DISABLED_REASON_TYPE_2_TYPE_1_VALUES!r}")
