"""Every currency the service takes and the digits of its minor unit, frozen.

How much a stake of "1000" is, and how every amount of a round is written, follow from its
currency's minor digits, so they are part of what every stored round means: re-scoring a
round, or formatting its ledger lines, years later must find the digits it was stored with.
They were taken once from CLDR as Babel 2.19.0 ships it and do not follow later CLDR data:
digits are data a CLDR release may change (CLDR's already differ from ISO 4217's for some
currencies: IQD 0 against 3). Adding a currency is a change of this table; changing a
currency's digits would change the rounds stored in it, and is not done.
"""

from __future__ import annotations

from collections.abc import Mapping

_ZERO = """
ADP AFN ALL BIF BYR CLP COP DJF ESP GNF HUF IDR IQD IRR ISK ITL JPY KMF KPW KRW LAK
LBP LUF MGA MGF MMK MRO PYG RWF SLL SOS STD SYP TMM TRL UGX UYI VND VUV XAF XOF XPF
YER ZMK ZWD
"""
_TWO = """
AED AFA ALK AMD ANG AOA AOK AON AOR ARA ARL ARM ARP ARS ATS AUD AWG AZM AZN BAD BAM
BAN BBD BDT BEC BEF BEL BGL BGM BGN BGO BMD BND BOB BOL BOP BOV BRB BRC BRE BRL BRN
BRR BRZ BSD BTN BUK BWP BYB BYN BZD CAD CDF CHE CHF CHW CLE CNH CNY COU CRC CSD CSK
CUC CUP CVE CYP CZK DDM DEM DKK DOP DZD ECS ECV EEK EGP ERN ESA ESB ETB EUR FIM FJD
FKP FRF GBP GEK GEL GHC GHS GIP GMD GNS GQE GRD GTQ GWE GWP GYD HKD HNL HRD HRK HTG
IEP ILP ILR ILS INR ISJ JMD KES KGS KHR KRH KRO KYD KZT LKR LRD LSL LTL LTT LUC LUL
LVL LVR MAD MAF MCF MDC MDL MKD MKN MLF MNT MOP MRU MTL MTP MUR MVP MVR MWK MXN MXP
MXV MYR MZE MZM MZN NAD NGN NIC NIO NLG NOK NPR NZD PAB PEI PEN PES PGK PHP PKR PLN
PLZ PTE QAR RHD ROL RON RSD RUB RUR SAR SBD SCR SDD SDG SDP SEK SGD SHP SIT SKK SLE
SRD SRG SSP STN SUR SVC SZL THB TJR TJS TMT TOP TPE TRY TTD TWD TZS UAH UAK UGS USD
USN USS UYP UYU UZS VEB VED VEF VES VNN WST XAD XAG XAU XBA XBB XBC XBD XCD XCG XDR
XEU XFO XFU XPD XPT XRE XSU XTS XUA XXX YDD YUD YUM YUN YUR ZAL ZAR ZMW ZRN ZRZ ZWG
ZWL ZWR
"""
_THREE = """
BHD JOD KWD LYD OMR TND
"""
_FOUR = """
CLF UYW
"""

MINOR_DIGITS: Mapping[str, int] = {
    code: digits
    for digits, codes in ((0, _ZERO), (2, _TWO), (3, _THREE), (4, _FOUR))
    for code in codes.split()
}
