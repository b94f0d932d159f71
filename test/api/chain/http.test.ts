import { expect } from 'chai'
import { Stack } from '../../support/stack'
import { call, stack } from './helpers'

const ORIGIN = 'http://explorer.example.test'

/** Reads max-age from a Cache-Control header, or undefined. */
function maxAge(header: string | null): number | undefined {
    const m = /max-age=(\d+)/.exec(header ?? '')
    return m ? Number(m[1]) : undefined
}

describe('chain API: CORS and caching', function () {
    this.timeout(600_000)
    let s: Stack

    before(async () => {
        s = await stack()
    })

    it('a cross-origin GET gets Access-Control-Allow-Origin (any origin, or the caller echoed)', async () => {
        for (const path of ['/api/v2/stats', '/api/v2/blocks', `/api/v2/addresses/${s.account(10).address}`]) {
            const res = await call(path, { headers: { Origin: ORIGIN } })
            expect(res.status, path).to.equal(200)
            expect(res.headers.get('access-control-allow-origin'), path).to.be.oneOf(['*', ORIGIN])
        }
        // Errors too: the browser hides the body of an error without the header.
        const missing = await call('/api/v2/blocks/999999999', { headers: { Origin: ORIGIN } })
        expect(missing.status).to.equal(404)
        expect(missing.headers.get('access-control-allow-origin')).to.be.oneOf(['*', ORIGIN])
    })

    it('a preflight OPTIONS (the frontend\'s /stats carries updated-gas-oracle) is allowed', async () => {
        const res = await call('/api/v2/stats', {
            method: 'OPTIONS',
            headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'updated-gas-oracle,content-type' },
        })
        expect(res.status, res.text).to.be.oneOf([200, 204])
        expect(res.headers.get('access-control-allow-origin')).to.be.oneOf(['*', ORIGIN])
        const methods = (res.headers.get('access-control-allow-methods') ?? '').toUpperCase()
        expect(methods === '*' || methods.includes('GET'), `Access-Control-Allow-Methods: ${methods}`).to.equal(true)
        const headers = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase()
        expect(headers === '*' || headers.includes('updated-gas-oracle'), `Access-Control-Allow-Headers: ${headers}`).to.equal(true)
    })

    it('a finalized block is cacheable for long (immutable or max-age ≥ 1 hour); the /blocks list is not', async () => {
        const old = await call('/api/v2/blocks/1')
        expect(old.status).to.equal(200)
        const cc = old.headers.get('cache-control')
        expect(cc, 'Cache-Control on /blocks/1').to.not.equal(null)
        expect(/immutable/.test(cc!) || (maxAge(cc) ?? 0) >= 3600, `Cache-Control on /blocks/1: ${cc}`).to.equal(true)
        expect(cc!).to.not.match(/no-store|no-cache|private/)

        const list = await call('/api/v2/blocks')
        const lcc = list.headers.get('cache-control')
        expect(/immutable/.test(lcc ?? ''), `Cache-Control on /blocks: ${lcc}`).to.equal(false)
        expect(maxAge(lcc) ?? 0, `Cache-Control on /blocks: ${lcc}`).to.be.at.most(60)
    })

    it('the head block is not cached as immutable (it is not final yet)', async () => {
        const head = (await s.db.query('SELECT max(number) AS n FROM block')).rows[0].n
        const res = await call(`/api/v2/blocks/${head}`)
        expect(res.status).to.equal(200)
        const cc = res.headers.get('cache-control')
        expect(/immutable/.test(cc ?? ''), `Cache-Control on the head block: ${cc}`).to.equal(false)
        expect(maxAge(cc) ?? 0, `Cache-Control on the head block: ${cc}`).to.be.at.most(60)
    })
})
