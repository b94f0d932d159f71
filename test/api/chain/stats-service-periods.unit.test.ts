import { expect } from 'chai'
import { isDayKey, nextPeriod, periodsBetween, periodStart } from '../../../api/stats-service/periods'

describe('stats service API: periods of the resolutions', () => {
    it('a week starts on Monday, a month and a year on their first day', () => {
        // 2026-11-30 is a Monday, 2026-11-29 a Sunday.
        expect(periodStart('2026-11-30', 'WEEK')).to.equal('2026-11-30')
        expect(periodStart('2026-11-29', 'WEEK')).to.equal('2026-11-23')
        expect(periodStart('2026-01-01', 'WEEK')).to.equal('2025-12-29')
        expect(periodStart('2026-11-29', 'MONTH')).to.equal('2026-11-01')
        expect(periodStart('2026-11-29', 'YEAR')).to.equal('2026-01-01')
        expect(periodStart('2026-11-29', 'DAY')).to.equal('2026-11-29')
    })

    it('the next period crosses months, years and leap days', () => {
        expect(nextPeriod('2024-02-28', 'DAY')).to.equal('2024-02-29')
        expect(nextPeriod('2025-12-29', 'WEEK')).to.equal('2026-01-05')
        expect(nextPeriod('2026-12-01', 'MONTH')).to.equal('2027-01-01')
        expect(nextPeriod('2026-01-01', 'YEAR')).to.equal('2027-01-01')
    })

    it('periodsBetween lists every period holding a day of the range, in order', () => {
        expect(periodsBetween('2026-11-25', '2026-12-02', 'WEEK')).to.deep.equal(['2026-11-23', '2026-11-30'])
        expect(periodsBetween('2026-10-31', '2027-01-01', 'MONTH')).to.deep.equal(['2026-10-01', '2026-11-01', '2026-12-01', '2027-01-01'])
        expect(periodsBetween('2026-11-29', '2026-11-29', 'DAY')).to.deep.equal(['2026-11-29'])
    })

    it('a day key is a real calendar day written YYYY-MM-DD', () => {
        for (const ok of ['2026-11-30', '2024-02-29', '1970-01-01']) expect(isDayKey(ok), ok).to.equal(true)
        for (const bad of ['2026-02-29', '2026-13-01', '2026-1-01', '20261130', '1969-12-31', '2026-11-30T00:00:00Z', '']) expect(isDayKey(bad), bad).to.equal(false)
    })
})
