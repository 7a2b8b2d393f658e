"""Webhook URL hosts and what the SSRF guard makes of them: one table for the creation route
(tests/api/test_api_webhooks.py) and the delivery resolver (tests/unit/test_webhooks_domain.py),
so the two checks cannot drift apart."""

from __future__ import annotations

# (the host as written in the URL, the address it denotes; None for a name)
REFUSED = [
    # IPv4 in every form inet_aton reads (getaddrinfo reads them too)
    ("127.1", "127.0.0.1"),
    ("0x7f.1", "127.0.0.1"),
    ("0X7F.0.0.1", "127.0.0.1"),
    ("017700000001", "127.0.0.1"),
    ("2130706433", "127.0.0.1"),
    ("0x7f000001", "127.0.0.1"),
    ("0177.0.0.1", "127.0.0.1"),
    ("0177.1", "127.0.0.1"),
    ("127.0.1", "127.0.0.1"),
    ("10.1", "10.0.0.1"),
    ("0x0a.0.0.1", "10.0.0.1"),
    ("192.168.257", "192.168.1.1"),
    ("0xa9fea9fe", "169.254.169.254"),
    ("0251.0376.0251.0376", "169.254.169.254"),
    ("0", "0.0.0.0"),
    ("100.64.1", "100.64.0.1"),
    ("127.0.0.1.", "127.0.0.1"),
    ("192.0.0.8", "192.0.0.8"),  # IETF protocol assignments: the dummy address, and the rest
    ("192.0.0.9", "192.0.0.9"),
    ("192.88.99.1", "192.88.99.1"),
    # non-ASCII digits and full stops (IDNA folds some; the rest are folded by us)
    ("\u0661\u0662\u0667.\u0660.\u0660.\u0661", "127.0.0.1"),  # Arabic-Indic
    ("\u06f1\u06f2\u06f7.\u06f0.\u06f0.\u06f1", "127.0.0.1"),  # Extended Arabic-Indic
    ("\u0967\u0966.\u0966.\u0966.\u0967", "10.0.0.1"),  # Devanagari
    ("\uff11\uff12\uff17.\uff10.\uff10.\uff11", "127.0.0.1"),  # fullwidth
    ("127\u30020\u30020\u30021", "127.0.0.1"),  # ideographic full stop
    ("\uff10\uff58\uff17\uff46.\uff11", "127.0.0.1"),  # fullwidth hex
    # characters IDNA's nameprep maps to nothing (soft hyphen, zero-width space, joiners)
    ("12\u00ad7.0.0.1", "127.0.0.1"),
    ("127.0.0.1\u200b", "127.0.0.1"),
    ("1\u200c27.0.0.1", "127.0.0.1"),
    ("\ufeff10.0.0.1", "10.0.0.1"),
    # IPv6: loopback, unique local, link-local, site-local (fec0::/10), and IPv4 inside IPv6
    ("[::1]", "::1"),
    ("[fd00::1]", "fd00::1"),
    ("[fe80::1%25eth0]", "fe80::1%25eth0"),
    ("[fec0::1]", "fec0::1"),
    ("[feff:ffff::1]", "feff:ffff::1"),
    ("[::ffff:127.0.0.1]", "::ffff:7f00:1"),  # IPv4-mapped
    ("[::ffff:a9fe:a9fe]", "::ffff:a9fe:a9fe"),
    ("[::127.0.0.1]", "::7f00:1"),  # IPv4-compatible
    ("[::8.8.8.8]", "::808:808"),  # (deprecated, never routed: refused whatever it carries)
    ("[2002:7f00:1::]", "2002:7f00:1::"),  # 6to4 of 127.0.0.1
    ("[2002:a9fe:a9fe::1]", "2002:a9fe:a9fe::1"),  # 6to4 of 169.254.169.254
    ("[2002:c0a8:101::]", "2002:c0a8:101::"),  # 6to4 of 192.168.1.1
    ("[2001:0:4136:e378:8000:63bf:3fff:fdd2]", "2001:0:4136:e378:8000:63bf:3fff:fdd2"),  # Teredo
    ("[2001:0:808:808:0:f7f7:80ff:fffe]", "2001:0:808:808:0:f7f7:80ff:fffe"),  # Teredo of 127.0.0.1
    ("[64:ff9b::127.0.0.1]", "64:ff9b::7f00:1"),  # NAT64
    ("[64:ff9b::a9fe:a9fe]", "64:ff9b::a9fe:a9fe"),
    ("[64:ff9b:1::808:808]", "64:ff9b:1::808:808"),  # local-use NAT64: the site's own
    ("[ff02::1]", "ff02::1"),
    ("[::]", "::"),
    # names of this machine
    ("localhost", None),
    ("LOCALHOST.", None),
    ("api.localhost", None),
    ("\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54", None),  # fullwidth
    ("loca\u00adlhost", None),
    ("localhost\u200d", None),
]

# Public addresses in odd forms: accepted at creation, connected to at delivery.
ALLOWED = [
    ("8.8.8.8", "8.8.8.8"),
    ("0x8.0x8.0x8.0x8", "8.8.8.8"),
    ("134744072", "8.8.8.8"),
    ("010.010.010.010", "8.8.8.8"),
    ("\uff18.\uff18.\uff18.\uff18", "8.8.8.8"),
    ("[2606:4700:4700::1111]", "2606:4700:4700::1111"),
    ("[::ffff:8.8.8.8]", "::ffff:8.8.8.8"),
    ("[64:ff9b::8.8.8.8]", "64:ff9b::808:808"),
    ("[2002:808:808::1]", "2002:808:808::1"),
]
