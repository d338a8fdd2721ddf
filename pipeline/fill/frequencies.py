"""How common real-world codes are: weights for categorical columns whose meaning is known.

Weights are relative (they need not sum to anything) and rounded on purpose: what matters is that English
is far more common than Quechua and the United States than Nauru, not the second digit. Sources, as
rounded estimates (the project wrote these tables; update the numbers, keep the shape):

- COUNTRIES: internet users in millions, ~2023 (ITU "Facts and Figures" and DataReportal country reports).
- LANGUAGES: total speakers (first and second language) in millions (Ethnologue 2024 top-200 list).
- MUSIC_LANGUAGES: share of tracks in streaming catalogues and charts in percent (IFPI Engaging with Music
  and Luminate year-end reports, 2023-2024; English about half, Spanish the clear second).
- CURRENCIES: share of international payments by value in percent (SWIFT RMB Tracker, 2024).
- TIMEZONES: people living in each IANA zone in millions (UN World Population Prospects 2024 per country,
  split by region for the countries with several zones).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence


def _table(text: str) -> tuple[tuple[str, float], ...]:
    """`"en 1515, zh 1140"` -> (("en", 1515.0), ("zh", 1140.0))."""
    pairs = []
    for item in text.replace("\n", " ").split(","):
        if item.strip():
            code, weight = item.rsplit(None, 1)
            pairs.append((code.strip(), float(weight)))
    return tuple(pairs)


COUNTRY_NAMES: dict[str, str] = dict(
    item.split("=", 1)
    for item in (
        "CN=China|IN=India|US=United States|ID=Indonesia|BR=Brazil|RU=Russia|NG=Nigeria|JP=Japan|PK=Pakistan|"
        "MX=Mexico|PH=Philippines|VN=Vietnam|DE=Germany|EG=Egypt|BD=Bangladesh|TR=Turkey|IR=Iran|"
        "GB=United Kingdom|FR=France|TH=Thailand|IT=Italy|KR=South Korea|ES=Spain|ZA=South Africa|"
        "CO=Colombia|AR=Argentina|CA=Canada|SA=Saudi Arabia|DZ=Algeria|PL=Poland|MY=Malaysia|IQ=Iraq|"
        "MA=Morocco|UA=Ukraine|ET=Ethiopia|KE=Kenya|UZ=Uzbekistan|PE=Peru|AU=Australia|VE=Venezuela|"
        "TW=Taiwan|MM=Myanmar|CD=DR Congo|CL=Chile|KZ=Kazakhstan|NL=Netherlands|RO=Romania|NP=Nepal|"
        "GH=Ghana|EC=Ecuador|TZ=Tanzania|SD=Sudan|AO=Angola|CM=Cameroon|LK=Sri Lanka|CI=Ivory Coast|"
        "KH=Cambodia|BE=Belgium|SE=Sweden|PT=Portugal|GR=Greece|CZ=Czechia|HU=Hungary|"
        "AE=United Arab Emirates|UG=Uganda|TN=Tunisia|DO=Dominican Republic|GT=Guatemala|BO=Bolivia|"
        "AZ=Azerbaijan|BY=Belarus|CH=Switzerland|AT=Austria|IL=Israel|HK=Hong Kong|SN=Senegal|JO=Jordan|"
        "SY=Syria|AF=Afghanistan|CU=Cuba|YE=Yemen|ML=Mali|MZ=Mozambique|ZM=Zambia|RS=Serbia|DK=Denmark|"
        "FI=Finland|NO=Norway|SG=Singapore|SK=Slovakia|NZ=New Zealand|IE=Ireland|HN=Honduras|PY=Paraguay|"
        "LB=Lebanon|LY=Libya|BG=Bulgaria|MG=Madagascar|BF=Burkina Faso|ZW=Zimbabwe|KG=Kyrgyzstan|"
        "CR=Costa Rica|OM=Oman|LA=Laos|KW=Kuwait|SV=El Salvador|RW=Rwanda|MW=Malawi|BJ=Benin|GN=Guinea|"
        "NE=Niger|TJ=Tajikistan|HT=Haiti|NI=Nicaragua|HR=Croatia|SO=Somalia|GE=Georgia|PA=Panama|"
        "UY=Uruguay|QA=Qatar|BA=Bosnia and Herzegovina|MN=Mongolia|PR=Puerto Rico|PG=Papua New Guinea|"
        "LT=Lithuania|TG=Togo|AL=Albania|AM=Armenia|JM=Jamaica|MD=Moldova|TM=Turkmenistan|TD=Chad|"
        "SL=Sierra Leone|BW=Botswana|SI=Slovenia|LV=Latvia|MK=North Macedonia|NA=Namibia|LR=Liberia|"
        "BH=Bahrain|EE=Estonia|TT=Trinidad and Tobago|CY=Cyprus|MU=Mauritius|SS=South Sudan|FJ=Fiji|"
        "GY=Guyana|LU=Luxembourg|BT=Bhutan|ME=Montenegro|MT=Malta|MV=Maldives|SR=Suriname|BN=Brunei|"
        "IS=Iceland|BS=Bahamas|BZ=Belize|BB=Barbados|AD=Andorra|LI=Liechtenstein|MC=Monaco|SM=San Marino|"
        "KP=North Korea"
    ).split("|")
)

COUNTRIES = _table(
    """CN 1090, IN 750, US 311, ID 213, BR 182, RU 130, NG 103, JP 102, PK 100, MX 101, PH 86, VN 78, DE 78,
    EG 82, BD 77, TR 74, IR 73, GB 66, FR 60, TH 63, IT 51, KR 50, ES 45, ZA 45, CO 40, AR 40, CA 37, SA 36,
    DZ 33, PL 34, MY 33, IQ 33, MA 33, UA 30, ET 22, KE 22, UZ 27, PE 25, AU 25, VE 20, TW 21, MM 24, CD 24,
    CL 18, KZ 18, NL 17, RO 17, NP 15, GH 22, EC 14, TZ 20, SD 13, AO 14, CM 13, LK 11, CI 12, KH 10, BE 11,
    SE 10, PT 9, GR 9, CZ 10, HU 9, AE 10, UG 12, TN 9, DO 9, GT 10, BO 8, AZ 9, BY 9, CH 8.5, AT 8.5, IL 8.5,
    HK 7.2, SN 10, JO 10, SY 8, AF 7, CU 8, YE 6, ML 7, MZ 7, ZM 7, RS 6, DK 5.8, FI 5.3, NO 5.5, SG 5.5,
    SK 4.8, NZ 4.8, IE 5, HN 6, PY 5.5, LB 5, LY 6, BG 5.5, MG 6, BF 5.5, ZW 5, KG 5, CR 4.6, OM 4.8, LA 4.5,
    KW 4.3, SV 4, RW 4, MW 4, BJ 4, GN 4, NE 4, TJ 4, HT 4, NI 3.8, HR 3.3, SO 3.5, GE 3.2, PA 3.2, UY 3.1,
    QA 2.9, BA 2.8, MN 2.8, PR 2.7, PG 2.5, LT 2.5, TG 2.5, AL 2.3, AM 2.3, JM 2.3, MD 2.1, TM 2, TD 2,
    SL 2, BW 1.9, SI 1.9, LV 1.7, MK 1.7, NA 1.6, LR 1.5, BH 1.5, EE 1.2, TT 1.2, CY 1.1, MU 1, SS 1, FJ 0.8,
    GY 0.7, LU 0.65, BT 0.6, ME 0.55, MT 0.5, MV 0.5, SR 0.5, BN 0.45, IS 0.37, BS 0.37, BZ 0.3, BB 0.25,
    AD 0.075, LI 0.04, MC 0.038, SM 0.03, KP 0.02"""
)

LANGUAGES = _table(
    """en 1515, zh 1140, hi 609, es 560, ar 335, fr 310, bn 273, pt 264, ru 255, ur 238, id 199, de 134,
    ja 123, mr 99, te 96, ha 94, tr 90, ta 87, sw 87, vi 86, tl 83, ko 82, fa 79, ms 77, jv 68, it 68, pa 52,
    gu 62, th 61, am 60, kn 59, ps 52, yo 46, my 43, pl 41, or 39, ml 37, uk 33, uz 32, ne 32, ig 31, ro 27,
    ku 26, nl 25, az 24, so 22, si 17, km 17, zu 28, xh 19, af 18, rw 15, el 13, hu 13, sv 13, cs 11, sr 10,
    ca 10, he 9, bg 8, sq 7, da 6, hr 6, sk 6, fi 5.8, be 5, hy 5, mn 5, no 5, ka 4, gl 3, lt 3, bs 2.5,
    sl 2.5, lv 2, mk 2, ga 1.9, et 1.1, cy 0.9, eu 0.9, mt 0.5, lb 0.4, is 0.36"""
)

MUSIC_LANGUAGES = _table(
    """en 48, es 11, pt 5.5, ko 3.5, ja 3.5, hi 3, de 2.6, fr 2.6, zh 2.5, it 1.8, ar 1.5, ru 1.4, tr 1.2,
    id 1, pa 0.8, pl 0.7, ta 0.7, te 0.6, nl 0.6, sv 0.6, th 0.5, vi 0.5, tl 0.5, bn 0.4, uk 0.3, ro 0.3,
    el 0.3, he 0.3, fa 0.3, ur 0.3, ms 0.3, ml 0.3, yo 0.25, kn 0.25, mr 0.25, fi 0.25, no 0.25, da 0.25,
    sw 0.2, cs 0.2, hu 0.2, sr 0.2, ca 0.15, hr 0.15, bg 0.1, sk 0.1, zu 0.1, af 0.08, am 0.06, ha 0.06,
    ig 0.05, ga 0.03, cy 0.03, is 0.03, eu 0.03"""
)

CURRENCIES = _table(
    """USD 47, EUR 22, GBP 7, CNY 4.5, JPY 4, CAD 2.3, AUD 1.5, HKD 1.5, SGD 1, CHF 1, THB 0.9, SEK 0.8,
    NOK 0.7, PLN 0.6, DKK 0.4, MXN 0.4, ZAR 0.35, NZD 0.3, TRY 0.3, CZK 0.25, HUF 0.25, MYR 0.2, INR 0.2,
    SAR 0.2, AED 0.2, KRW 0.15, BRL 0.12, IDR 0.1, PHP 0.1, RON 0.1, ILS 0.1, CLP 0.08, COP 0.06, KWD 0.06,
    QAR 0.05, TWD 0.05, VND 0.04, PEN 0.03, EGP 0.03, KES 0.03, NGN 0.03, PKR 0.02, ARS 0.02, UAH 0.02,
    BGN 0.02, KZT 0.02, MAD 0.02, OMR 0.02, BHD 0.02, RUB 0.02, ISK 0.01, JOD 0.01, LKR 0.01, BDT 0.01,
    GHS 0.01, TND 0.01"""
)

TIMEZONES = _table(
    """Asia/Kolkata 1430, Asia/Shanghai 1410, Asia/Karachi 240, Africa/Lagos 230, Asia/Jakarta 190,
    America/Sao_Paulo 185, Asia/Dhaka 173, America/New_York 160, Africa/Addis_Ababa 126, Asia/Tokyo 124,
    Asia/Manila 115, Africa/Cairo 112, America/Chicago 110, Europe/Moscow 100, America/Mexico_City 100,
    Asia/Ho_Chi_Minh 100, Asia/Tehran 89, Europe/Istanbul 85, Europe/Berlin 84, Asia/Bangkok 72,
    Asia/Makassar 70, Europe/London 68, Europe/Paris 68, Africa/Dar_es_Salaam 67, Africa/Johannesburg 62,
    Africa/Lubumbashi 60, Europe/Rome 59, Africa/Nairobi 55, Asia/Yangon 54, America/Los_Angeles 53,
    Asia/Seoul 52, America/Bogota 52, Europe/Madrid 48, Africa/Kampala 48, Africa/Khartoum 48,
    America/Argentina/Buenos_Aires 46, Africa/Algiers 45, Asia/Baghdad 45, Asia/Kabul 41, Africa/Kinshasa 40,
    Europe/Warsaw 37, Africa/Casablanca 37, Europe/Kyiv 37, Asia/Riyadh 36, Africa/Luanda 36,
    Asia/Tashkent 36, Asia/Kuala_Lumpur 34, Africa/Accra 34, America/Lima 34, Asia/Aden 34, Africa/Maputo 33,
    Asia/Kathmandu 30, Indian/Antananarivo 30, Africa/Abidjan 29, America/Caracas 28, Africa/Douala 28,
    Africa/Niamey 27, Asia/Pyongyang 26, Asia/Taipei 23, Asia/Damascus 23, Africa/Bamako 23,
    Africa/Ouagadougou 23, Asia/Colombo 22, America/Denver 20, Asia/Almaty 20, Africa/Lusaka 20,
    America/Santiago 19.6, Europe/Bucharest 19, Africa/Dakar 18, Africa/Ndjamena 18, America/Guatemala 18,
    America/Guayaquil 18, Europe/Amsterdam 17.9, Asia/Phnom_Penh 17, Africa/Harare 16.6, America/Toronto 16,
    America/Manaus 15, Asia/Yekaterinburg 15, Africa/Conakry 14, Africa/Kigali 14, Africa/Tunis 12,
    Asia/Novosibirsk 12, America/La_Paz 12, Europe/Brussels 11.8, America/Port-au-Prince 11.7,
    Asia/Amman 11.3, America/Santo_Domingo 11.3, America/Havana 11, America/Tegucigalpa 10.6,
    Europe/Prague 10.5, Europe/Stockholm 10.5, Europe/Athens 10.4, Europe/Lisbon 10.4, Asia/Baku 10.1,
    Asia/Dushanbe 10, Pacific/Port_Moresby 10, Asia/Jerusalem 9.8, Europe/Budapest 9.6, Asia/Dubai 9.5,
    Europe/Minsk 9.2, Europe/Vienna 9.1, Africa/Lome 9, Asia/Krasnoyarsk 9, Europe/Zurich 8.8,
    Australia/Sydney 8.3, Asia/Vientiane 7.6, Asia/Hong_Kong 7.5, America/Phoenix 7.4, America/Managua 7,
    Asia/Bishkek 7, Africa/Tripoli 6.9, America/Asuncion 6.9, Australia/Melbourne 6.8, Europe/Belgrade 6.6,
    Europe/Sofia 6.4, America/El_Salvador 6.3, Asia/Jayapura 6, Europe/Copenhagen 5.9, Asia/Singapore 5.9,
    Europe/Helsinki 5.6, Europe/Oslo 5.5, Australia/Brisbane 5.4, Europe/Bratislava 5.4, Europe/Dublin 5.3,
    America/Costa_Rica 5.2, Pacific/Auckland 5.2, America/Vancouver 5, America/Edmonton 5,
    Asia/Vladivostok 5, Asia/Muscat 4.6, America/Panama 4.5, Asia/Kuwait 4.3, Europe/Zagreb 3.9,
    Asia/Tbilisi 3.7, America/Montevideo 3.4, Asia/Ulaanbaatar 3.4, America/Puerto_Rico 3.2,
    Australia/Perth 2.9, Europe/Vilnius 2.9, Asia/Yerevan 2.8, America/Jamaica 2.8, Asia/Qatar 2.7,
    Europe/Chisinau 2.5, Europe/Ljubljana 2.1, UTC 2, Europe/Riga 1.9, Australia/Adelaide 1.8,
    Asia/Bahrain 1.5, America/Winnipeg 1.4, Pacific/Honolulu 1.4, Europe/Tallinn 1.4, Europe/Nicosia 1.3,
    America/Halifax 1, America/Anchorage 0.73, Europe/Luxembourg 0.66, Europe/Malta 0.53,
    Atlantic/Reykjavik 0.39, Europe/Andorra 0.08, Europe/Monaco 0.04"""
)

COUNTRY_NAME_WEIGHTS = tuple((COUNTRY_NAMES[code], weight) for code, weight in COUNTRIES)

TABLES: dict[str, tuple[tuple[str, float], ...]] = {
    "country_code": COUNTRIES,
    "country": COUNTRY_NAME_WEIGHTS,
    "language_code": LANGUAGES,
    "music_language_code": MUSIC_LANGUAGES,
    "currency_code": CURRENCIES,
    "timezone": TIMEZONES,
}
"""Frequency tables by the strategy that draws from them (`music_language_code`: languages in a music
context, chosen by the column's topic)."""

FLOOR = 0.01
"""Weight, relative to the table's smallest, of an allowed value the table does not know."""


def table_for(strategy: str, topic: str = "") -> tuple[tuple[str, float], ...] | None:
    """The frequency table of a strategy (in `topic`), or None when it has none."""
    if strategy == "language_code" and topic == "music":
        return MUSIC_LANGUAGES
    return TABLES.get(strategy)


@functools.lru_cache(maxsize=64)
def _lookup(table: tuple[tuple[str, float], ...]) -> dict[str, float]:
    return {code.lower(): weight for code, weight in table}


def weights_for(values: Sequence[object], table: Iterable[tuple[str, float]]) -> list[float]:
    """Weights of `values` (allowed values of a column, or a hint's list) by `table`, case-insensitively.

    A value the table does not know weighs `FLOOR` times the table's smallest weight: rare, not absent.
    """
    lookup = _lookup(tuple(table))
    floor = min(lookup.values()) * FLOOR
    return [lookup.get(str(v).lower(), floor) if v is not None else floor for v in values]
