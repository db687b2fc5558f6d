package validate

// This file holds the reference tables behind IBAN, Currency, MinorUnits and
// Country.

// ibanLengths maps each country code in the SWIFT IBAN registry to the total
// length of its IBANs (89 IBAN country codes, current as of the 2025 registry
// releases). Territories that the registry lists under another country (for
// example the Åland Islands under FI, the French overseas departments and
// territories under FR, and Guernsey, the Isle of Man and Jersey under GB) use
// that country's code in their IBANs and so are not separate entries. XK
// (Kosovo) is not an ISO 3166-1 code but is a registry IBAN country.
var ibanLengths = map[string]int{
	"AD": 24, // Andorra
	"AE": 23, // United Arab Emirates
	"AL": 28, // Albania
	"AT": 20, // Austria
	"AZ": 28, // Azerbaijan
	"BA": 20, // Bosnia and Herzegovina
	"BE": 16, // Belgium
	"BG": 22, // Bulgaria
	"BH": 22, // Bahrain
	"BI": 27, // Burundi
	"BR": 29, // Brazil
	"BY": 28, // Belarus
	"CH": 21, // Switzerland
	"CR": 22, // Costa Rica
	"CY": 28, // Cyprus
	"CZ": 24, // Czechia
	"DE": 22, // Germany
	"DJ": 27, // Djibouti
	"DK": 18, // Denmark
	"DO": 28, // Dominican Republic
	"EE": 20, // Estonia
	"EG": 29, // Egypt
	"ES": 24, // Spain
	"FI": 18, // Finland (also used in the Åland Islands)
	"FK": 18, // Falkland Islands
	"FO": 18, // Faroe Islands
	"FR": 27, // France (also used in its overseas departments and territories)
	"GB": 22, // United Kingdom (also used in Guernsey, Isle of Man and Jersey)
	"GE": 22, // Georgia
	"GI": 23, // Gibraltar
	"GL": 18, // Greenland
	"GR": 27, // Greece
	"GT": 28, // Guatemala
	"HN": 28, // Honduras
	"HR": 21, // Croatia
	"HU": 28, // Hungary
	"IE": 22, // Ireland
	"IL": 23, // Israel
	"IQ": 23, // Iraq
	"IS": 26, // Iceland
	"IT": 27, // Italy
	"JO": 30, // Jordan
	"KW": 30, // Kuwait
	"KZ": 20, // Kazakhstan
	"LB": 28, // Lebanon
	"LC": 32, // Saint Lucia
	"LI": 21, // Liechtenstein
	"LT": 20, // Lithuania
	"LU": 20, // Luxembourg
	"LV": 21, // Latvia
	"LY": 25, // Libya
	"MC": 27, // Monaco
	"MD": 24, // Moldova
	"ME": 22, // Montenegro
	"MK": 19, // North Macedonia
	"MN": 20, // Mongolia
	"MR": 27, // Mauritania
	"MT": 31, // Malta
	"MU": 30, // Mauritius
	"NI": 28, // Nicaragua
	"NL": 18, // Netherlands
	"NO": 15, // Norway
	"OM": 23, // Oman
	"PK": 24, // Pakistan
	"PL": 28, // Poland
	"PS": 29, // Palestine
	"PT": 25, // Portugal
	"QA": 29, // Qatar
	"RO": 24, // Romania
	"RS": 22, // Serbia
	"RU": 33, // Russia
	"SA": 24, // Saudi Arabia
	"SC": 31, // Seychelles
	"SD": 18, // Sudan
	"SE": 24, // Sweden
	"SI": 19, // Slovenia
	"SK": 24, // Slovakia
	"SM": 27, // San Marino
	"SO": 23, // Somalia
	"ST": 25, // Sao Tome and Principe
	"SV": 28, // El Salvador
	"TL": 23, // Timor-Leste
	"TN": 24, // Tunisia
	"TR": 26, // Turkey
	"UA": 29, // Ukraine
	"VA": 22, // Vatican City State
	"VG": 24, // British Virgin Islands
	"XK": 20, // Kosovo
	"YE": 30, // Yemen
}

// minorUnits maps each currency code of the API's currency set to its number
// of minor-unit digits. The keys are exactly the currency set of the service
// specification. Values follow ISO 4217; codes that are not, or no longer, in
// ISO 4217 use their last ISO value or the customary value (noted inline).
var minorUnits = map[string]int{
	"AED": 2,
	"AFN": 2,
	"ALL": 2,
	"AMD": 2,
	"ANG": 2, // being replaced by XCG (Caribbean guilder); ISO value
	"AOA": 2,
	"ARS": 2,
	"AUD": 2,
	"AWG": 2,
	"AZN": 2,
	"BAM": 2,
	"BBD": 2,
	"BDT": 2,
	"BGN": 2,
	"BHD": 3,
	"BIF": 0,
	"BMD": 2,
	"BND": 2,
	"BOB": 2,
	"BRL": 2,
	"BSD": 2,
	"BTN": 2,
	"BWP": 2,
	"BYR": 0, // withdrawn 2016 (replaced by BYN); last ISO value was 0
	"BZD": 2,
	"CAD": 2,
	"CDF": 2,
	"CHF": 2,
	"CLP": 0,
	"CNY": 2,
	"COP": 2,
	"CRC": 2,
	"CUC": 2, // withdrawn (Cuba unified on CUP); last ISO value
	"CUP": 2,
	"CVE": 2,
	"CZK": 2,
	"DJF": 0,
	"DKK": 2,
	"DOP": 2,
	"DZD": 2,
	"EGP": 2,
	"ERN": 2,
	"ETB": 2,
	"EUR": 2,
	"FJD": 2,
	"FKP": 2,
	"GBP": 2,
	"GEL": 2,
	"GGP": 2, // not ISO 4217 (Guernsey pound, at par with GBP); customary 2 like GBP
	"GHS": 2,
	"GIP": 2,
	"GMD": 2,
	"GNF": 0,
	"GTQ": 2,
	"GYD": 2,
	"HKD": 2,
	"HNL": 2,
	"HRK": 2, // withdrawn 2023 (replaced by EUR); last ISO value
	"HTG": 2,
	"HUF": 2,
	"IDR": 2,
	"ILS": 2,
	"IMP": 2, // not ISO 4217 (Manx pound, at par with GBP); customary 2 like GBP
	"INR": 2,
	"IQD": 3,
	"IRR": 2,
	"ISK": 0,
	"JEP": 2, // not ISO 4217 (Jersey pound, at par with GBP); customary 2 like GBP
	"JMD": 2,
	"JOD": 3,
	"JPY": 0,
	"KES": 2,
	"KGS": 2,
	"KHR": 2,
	"KMF": 0,
	"KPW": 2,
	"KRW": 0,
	"KWD": 3,
	"KYD": 2,
	"KZT": 2,
	"LAK": 2,
	"LBP": 2,
	"LKR": 2,
	"LRD": 2,
	"LSL": 2,
	"LYD": 3,
	"MAD": 2,
	"MDL": 2,
	"MGA": 2, // ISO lists 2 although the iraimbilanja is 1/5 ariary
	"MKD": 2,
	"MMK": 2,
	"MNT": 2,
	"MOP": 2,
	"MRO": 2, // withdrawn 2018 (replaced by MRU); ISO listed it with 2 (khoums are 1/5, not 1/100)
	"MUR": 2,
	"MVR": 2,
	"MWK": 2,
	"MXN": 2,
	"MYR": 2,
	"MZN": 2,
	"NAD": 2,
	"NGN": 2,
	"NIO": 2,
	"NOK": 2,
	"NPR": 2,
	"NZD": 2,
	"OMR": 3,
	"PAB": 2,
	"PEN": 2,
	"PGK": 2,
	"PHP": 2,
	"PKR": 2,
	"PLN": 2,
	"PYG": 0,
	"QAR": 2,
	"RON": 2,
	"RSD": 2,
	"RUB": 2,
	"RWF": 0,
	"SAR": 2,
	"SBD": 2,
	"SCR": 2,
	"SDG": 2,
	"SEK": 2,
	"SGD": 2,
	"SHP": 2,
	"SLL": 2, // withdrawn (redenominated as SLE); last ISO value
	"SOS": 2,
	"SPL": 2, // not ISO 4217 (Seborga luigino); customary 2
	"SRD": 2,
	"STD": 2, // withdrawn 2018 (replaced by STN); last ISO value
	"SVC": 2,
	"SYP": 2,
	"SZL": 2,
	"THB": 2,
	"TJS": 2,
	"TMT": 2,
	"TND": 3,
	"TOP": 2,
	"TRY": 2,
	"TTD": 2,
	"TVD": 2, // not ISO 4217 (Tuvaluan dollar, at par with AUD); customary 2 like AUD
	"TWD": 2,
	"TZS": 2,
	"UAH": 2,
	"UGX": 0,
	"USD": 2,
	"UYU": 2,
	"UZS": 2,
	"VEF": 2, // withdrawn 2018 (replaced by VES); last ISO value
	"VND": 0,
	"VUV": 0,
	"WST": 2,
	"XAF": 0,
	"XCD": 2,
	"XDR": 2, // ISO 4217 lists minor units as N.A.; 2 is the CLDR default used by most libraries
	"XOF": 0,
	"XPF": 0,
	"YER": 2,
	"ZAR": 2,
	"ZMW": 2,
	"ZWD": 2, // withdrawn (replaced by ZWN, later ZWL and ZWG); last ISO value
}

// countries is the set of the 249 officially assigned ISO 3166-1 alpha-2
// codes.
var countries = map[string]struct{}{
	"AD": {}, // Andorra
	"AE": {}, // United Arab Emirates
	"AF": {}, // Afghanistan
	"AG": {}, // Antigua and Barbuda
	"AI": {}, // Anguilla
	"AL": {}, // Albania
	"AM": {}, // Armenia
	"AO": {}, // Angola
	"AQ": {}, // Antarctica
	"AR": {}, // Argentina
	"AS": {}, // American Samoa
	"AT": {}, // Austria
	"AU": {}, // Australia
	"AW": {}, // Aruba
	"AX": {}, // Åland Islands
	"AZ": {}, // Azerbaijan
	"BA": {}, // Bosnia and Herzegovina
	"BB": {}, // Barbados
	"BD": {}, // Bangladesh
	"BE": {}, // Belgium
	"BF": {}, // Burkina Faso
	"BG": {}, // Bulgaria
	"BH": {}, // Bahrain
	"BI": {}, // Burundi
	"BJ": {}, // Benin
	"BL": {}, // Saint Barthélemy
	"BM": {}, // Bermuda
	"BN": {}, // Brunei Darussalam
	"BO": {}, // Bolivia, Plurinational State of
	"BQ": {}, // Bonaire, Sint Eustatius and Saba
	"BR": {}, // Brazil
	"BS": {}, // Bahamas
	"BT": {}, // Bhutan
	"BV": {}, // Bouvet Island
	"BW": {}, // Botswana
	"BY": {}, // Belarus
	"BZ": {}, // Belize
	"CA": {}, // Canada
	"CC": {}, // Cocos (Keeling) Islands
	"CD": {}, // Congo, The Democratic Republic of the
	"CF": {}, // Central African Republic
	"CG": {}, // Congo
	"CH": {}, // Switzerland
	"CI": {}, // Côte d'Ivoire
	"CK": {}, // Cook Islands
	"CL": {}, // Chile
	"CM": {}, // Cameroon
	"CN": {}, // China
	"CO": {}, // Colombia
	"CR": {}, // Costa Rica
	"CU": {}, // Cuba
	"CV": {}, // Cabo Verde
	"CW": {}, // Curaçao
	"CX": {}, // Christmas Island
	"CY": {}, // Cyprus
	"CZ": {}, // Czechia
	"DE": {}, // Germany
	"DJ": {}, // Djibouti
	"DK": {}, // Denmark
	"DM": {}, // Dominica
	"DO": {}, // Dominican Republic
	"DZ": {}, // Algeria
	"EC": {}, // Ecuador
	"EE": {}, // Estonia
	"EG": {}, // Egypt
	"EH": {}, // Western Sahara
	"ER": {}, // Eritrea
	"ES": {}, // Spain
	"ET": {}, // Ethiopia
	"FI": {}, // Finland
	"FJ": {}, // Fiji
	"FK": {}, // Falkland Islands (Malvinas)
	"FM": {}, // Micronesia, Federated States of
	"FO": {}, // Faroe Islands
	"FR": {}, // France
	"GA": {}, // Gabon
	"GB": {}, // United Kingdom
	"GD": {}, // Grenada
	"GE": {}, // Georgia
	"GF": {}, // French Guiana
	"GG": {}, // Guernsey
	"GH": {}, // Ghana
	"GI": {}, // Gibraltar
	"GL": {}, // Greenland
	"GM": {}, // Gambia
	"GN": {}, // Guinea
	"GP": {}, // Guadeloupe
	"GQ": {}, // Equatorial Guinea
	"GR": {}, // Greece
	"GS": {}, // South Georgia and the South Sandwich Islands
	"GT": {}, // Guatemala
	"GU": {}, // Guam
	"GW": {}, // Guinea-Bissau
	"GY": {}, // Guyana
	"HK": {}, // Hong Kong
	"HM": {}, // Heard Island and McDonald Islands
	"HN": {}, // Honduras
	"HR": {}, // Croatia
	"HT": {}, // Haiti
	"HU": {}, // Hungary
	"ID": {}, // Indonesia
	"IE": {}, // Ireland
	"IL": {}, // Israel
	"IM": {}, // Isle of Man
	"IN": {}, // India
	"IO": {}, // British Indian Ocean Territory
	"IQ": {}, // Iraq
	"IR": {}, // Iran, Islamic Republic of
	"IS": {}, // Iceland
	"IT": {}, // Italy
	"JE": {}, // Jersey
	"JM": {}, // Jamaica
	"JO": {}, // Jordan
	"JP": {}, // Japan
	"KE": {}, // Kenya
	"KG": {}, // Kyrgyzstan
	"KH": {}, // Cambodia
	"KI": {}, // Kiribati
	"KM": {}, // Comoros
	"KN": {}, // Saint Kitts and Nevis
	"KP": {}, // Korea, Democratic People's Republic of
	"KR": {}, // Korea, Republic of
	"KW": {}, // Kuwait
	"KY": {}, // Cayman Islands
	"KZ": {}, // Kazakhstan
	"LA": {}, // Lao People's Democratic Republic
	"LB": {}, // Lebanon
	"LC": {}, // Saint Lucia
	"LI": {}, // Liechtenstein
	"LK": {}, // Sri Lanka
	"LR": {}, // Liberia
	"LS": {}, // Lesotho
	"LT": {}, // Lithuania
	"LU": {}, // Luxembourg
	"LV": {}, // Latvia
	"LY": {}, // Libya
	"MA": {}, // Morocco
	"MC": {}, // Monaco
	"MD": {}, // Moldova, Republic of
	"ME": {}, // Montenegro
	"MF": {}, // Saint Martin (French part)
	"MG": {}, // Madagascar
	"MH": {}, // Marshall Islands
	"MK": {}, // North Macedonia
	"ML": {}, // Mali
	"MM": {}, // Myanmar
	"MN": {}, // Mongolia
	"MO": {}, // Macao
	"MP": {}, // Northern Mariana Islands
	"MQ": {}, // Martinique
	"MR": {}, // Mauritania
	"MS": {}, // Montserrat
	"MT": {}, // Malta
	"MU": {}, // Mauritius
	"MV": {}, // Maldives
	"MW": {}, // Malawi
	"MX": {}, // Mexico
	"MY": {}, // Malaysia
	"MZ": {}, // Mozambique
	"NA": {}, // Namibia
	"NC": {}, // New Caledonia
	"NE": {}, // Niger
	"NF": {}, // Norfolk Island
	"NG": {}, // Nigeria
	"NI": {}, // Nicaragua
	"NL": {}, // Netherlands
	"NO": {}, // Norway
	"NP": {}, // Nepal
	"NR": {}, // Nauru
	"NU": {}, // Niue
	"NZ": {}, // New Zealand
	"OM": {}, // Oman
	"PA": {}, // Panama
	"PE": {}, // Peru
	"PF": {}, // French Polynesia
	"PG": {}, // Papua New Guinea
	"PH": {}, // Philippines
	"PK": {}, // Pakistan
	"PL": {}, // Poland
	"PM": {}, // Saint Pierre and Miquelon
	"PN": {}, // Pitcairn
	"PR": {}, // Puerto Rico
	"PS": {}, // Palestine, State of
	"PT": {}, // Portugal
	"PW": {}, // Palau
	"PY": {}, // Paraguay
	"QA": {}, // Qatar
	"RE": {}, // Réunion
	"RO": {}, // Romania
	"RS": {}, // Serbia
	"RU": {}, // Russian Federation
	"RW": {}, // Rwanda
	"SA": {}, // Saudi Arabia
	"SB": {}, // Solomon Islands
	"SC": {}, // Seychelles
	"SD": {}, // Sudan
	"SE": {}, // Sweden
	"SG": {}, // Singapore
	"SH": {}, // Saint Helena, Ascension and Tristan da Cunha
	"SI": {}, // Slovenia
	"SJ": {}, // Svalbard and Jan Mayen
	"SK": {}, // Slovakia
	"SL": {}, // Sierra Leone
	"SM": {}, // San Marino
	"SN": {}, // Senegal
	"SO": {}, // Somalia
	"SR": {}, // Suriname
	"SS": {}, // South Sudan
	"ST": {}, // Sao Tome and Principe
	"SV": {}, // El Salvador
	"SX": {}, // Sint Maarten (Dutch part)
	"SY": {}, // Syrian Arab Republic
	"SZ": {}, // Eswatini
	"TC": {}, // Turks and Caicos Islands
	"TD": {}, // Chad
	"TF": {}, // French Southern Territories
	"TG": {}, // Togo
	"TH": {}, // Thailand
	"TJ": {}, // Tajikistan
	"TK": {}, // Tokelau
	"TL": {}, // Timor-Leste
	"TM": {}, // Turkmenistan
	"TN": {}, // Tunisia
	"TO": {}, // Tonga
	"TR": {}, // Türkiye
	"TT": {}, // Trinidad and Tobago
	"TV": {}, // Tuvalu
	"TW": {}, // Taiwan, Province of China
	"TZ": {}, // Tanzania, United Republic of
	"UA": {}, // Ukraine
	"UG": {}, // Uganda
	"UM": {}, // United States Minor Outlying Islands
	"US": {}, // United States
	"UY": {}, // Uruguay
	"UZ": {}, // Uzbekistan
	"VA": {}, // Holy See (Vatican City State)
	"VC": {}, // Saint Vincent and the Grenadines
	"VE": {}, // Venezuela, Bolivarian Republic of
	"VG": {}, // Virgin Islands, British
	"VI": {}, // Virgin Islands, U.S.
	"VN": {}, // Viet Nam
	"VU": {}, // Vanuatu
	"WF": {}, // Wallis and Futuna
	"WS": {}, // Samoa
	"YE": {}, // Yemen
	"YT": {}, // Mayotte
	"ZA": {}, // South Africa
	"ZM": {}, // Zambia
	"ZW": {}, // Zimbabwe
}
