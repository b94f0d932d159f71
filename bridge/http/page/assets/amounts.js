// How the swap page shows amounts (docs/bridge/README.md#swap-page). Amounts arrive as decimal strings of
// whole tokens, up to 18 decimals; they are cut (never rounded up) with string logic only, since a float
// would change the digits. The exact value stays available in the element's title and its copy button.
'use strict'

;(function () {
    /** Decimals shown for amounts of 1 or more; below 1, the significant digits shown after the leading zeros. */
    const DIGITS = 6

    function displayAmount(value) {
        if (value === null || value === undefined) return value
        const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(String(value))
        if (!m) return String(value)
        const [, sign, whole, fraction = ''] = m
        const integer = whole.replace(/^0+(?=\d)/, '')
        const firstDigit = fraction.search(/[1-9]/)
        const keep = integer === '0' && firstDigit > 0 ? firstDigit + DIGITS : DIGITS
        const shown = fraction.slice(0, keep).replace(/0+$/, '')
        return `${sign}${integer}${shown ? `.${shown}` : ''}`
    }

    globalThis.SwapAmounts = { displayAmount, DIGITS }
})()
