import { expect } from 'chai'
import { Stack } from '../../support/stack'
import { call, stack, unknownAddress, unknownHash, v2 } from './helpers'
import * as S from './shapes'

/**
 * Errors over every route: unknown /api/v2 paths are 400 "Unknown API v2 action", and nothing
 * a client sends is ever answered with a 5xx. Route-specific 404/422 cases live in each route's file.
 */
describe('chain API: errors', function () {
    this.timeout(600_000)
    let s: Stack

    before(async () => {
        s = await stack()
    })

    it('an unknown /api/v2 path is 400 {"message":"Unknown API v2 action"}', async () => {
        for (const path of ['/nope', '/blocks/1/nope', `/transactions/${unknownHash()}/nope`, `/addresses/${unknownAddress()}/nope`, '/tokens/x/y/z', '/main-page', '/stats/nope']) {
            const res = await v2(path)
            expect(res.status, `${path}: ${res.text}`).to.equal(400)
            expect(res.body, path).to.deep.equal({ message: 'Unknown API v2 action' })
        }
    })

    /** The routes these checks cover, each with a valid id. */
    function routes(): string[] {
        const a = s.account(10).address
        const t = s.tokens.GOLD
        const h = s.extras.feeTokenTransfer
        const n = s.extras.bigBlock.number
        return [
            '/stats', '/search?q=gold', '/search/quick?q=gold', '/search/check-redirect?q=gold', '/blocks', `/blocks/${n}`, `/blocks/${n}/transactions`,
            '/transactions', `/transactions/${h}`, `/transactions/${h}/logs`, `/transactions/${h}/token-transfers`, '/transactions/stats',
            `/addresses/${a}`, `/addresses/${a}/transactions`, `/addresses/${a}/token-balances`, `/addresses/${a}/logs`, `/addresses/${a}/token-transfers`,
            `/addresses/${a}/counters`, `/addresses/${a}/tabs-counters`, `/addresses/${a}/tokens?type=ERC-20`,
            '/tokens', `/tokens/${t}`, `/tokens/${t}/holders`, `/tokens/${t}/counters`, `/tokens/${t}/transfers`, `/smart-contracts/${s.contracts.router}`,
            '/main-page/blocks', '/main-page/transactions', '/main-page/indexing-status', '/config/backend-version', '/stats/charts/transactions',
        ]
    }

    it('every route answers 200 to a well-formed request', async () => {
        for (const route of routes()) {
            const res = await call(`/api/v2${route}`)
            expect(res.status, `${route}: ${res.text.slice(0, 300)}`).to.equal(200)
            expect(res.body, `${route}: a JSON body`).to.not.equal(undefined)
        }
    })

    it('garbage query parameters on every route: a 4xx with a message or a 200, never a 5xx', async () => {
        const garbage = [
            'block_number=%00', 'block_number[]=1', 'index=1e309', 'items_count=-1', 'items_count=9999999999999999999999',
            'value=NaN', 'fee=abc', 'hash=0x', 'inserted_at=yesterday', 'address_hash=%27%3B--', 'holders_count=x', 'market_cap=null',
            'fiat_value=%7B%7D', 'name[a]=b', 'is_name_null=maybe', 'contract_address_hash=0xZZ', 'type=%E2%9C%93', 'filter=', 'sort=', 'order=',
            'q=%00%27', 'topic=0xZZ', 'limit=-5', 'next_page_params_type=search&token[name]=x',
        ]
        const failures: string[] = []
        for (const route of routes()) {
            for (const g of garbage) {
                const url = `/api/v2${route}${route.includes('?') ? '&' : '?'}${g}`
                const res = await call(url)
                if (res.status >= 500) failures.push(`${url} → ${res.status} ${res.text.slice(0, 120)}`)
                else if (res.status >= 400) {
                    const parsed = S.Unprocessable.safeParse(res.body)
                    if (!parsed.success && !(res.body && typeof res.body.message === 'string')) failures.push(`${url} → ${res.status} without a message: ${res.text.slice(0, 120)}`)
                }
            }
        }
        expect(failures, failures.join('\n')).to.deep.equal([])
    })

    it('malformed ids in every path position: 422 (or 404 for a well-formed unknown), never a 5xx', async () => {
        const bad = ['0x', '0xzz', 'null', 'undefined', '%20', '-0', '0x' + 'f'.repeat(41), "'", '%E2%9C%93']
        const templates = [
            '/blocks/{}', '/blocks/{}/transactions', '/transactions/{}', '/transactions/{}/logs', '/transactions/{}/token-transfers',
            '/addresses/{}', '/addresses/{}/transactions', '/addresses/{}/token-balances', '/addresses/{}/logs', '/addresses/{}/token-transfers',
            '/addresses/{}/counters', '/addresses/{}/tabs-counters', '/addresses/{}/tokens', '/tokens/{}', '/tokens/{}/holders',
            '/tokens/{}/counters', '/tokens/{}/transfers', '/smart-contracts/{}',
        ]
        const failures: string[] = []
        for (const template of templates) {
            for (const id of bad) {
                const path = `/api/v2${template.replace('{}', id)}`
                const res = await call(path)
                if (res.status >= 500 || res.status < 400) failures.push(`${path} → ${res.status} ${res.text.slice(0, 120)}`)
            }
        }
        expect(failures, failures.join('\n')).to.deep.equal([])
    })

    it('the v1 block countdown for a future block: CurrentBlock, CountdownBlock, RemainingBlock, EstimateTimeInSec', async () => {
        const head = (await s.db.query('SELECT max(number) AS n FROM block')).rows[0].n as number
        const target = head + 100
        const res = await call('/api', { query: { module: 'block', action: 'getblockcountdown', blockno: String(target) } })
        expect(res.status, res.text).to.equal(200)
        const parsed = S.Countdown.safeParse(res.body)
        if (!parsed.success) expect.fail(`countdown: ${parsed.error.message}\n${res.text}`)
        const { result } = parsed.data
        expect(result.CountdownBlock).to.equal(String(target))
        expect(result.CurrentBlock).to.equal(String(head))
        expect(result.RemainingBlock).to.equal('100')
        expect(Number(result.EstimateTimeInSec)).to.be.greaterThan(0)
    })

    it('the v1 block countdown for a past block or a bad number: an Etherscan-style error, not a 5xx', async () => {
        for (const blockno of ['1', 'abc', '']) {
            const res = await call('/api', { query: { module: 'block', action: 'getblockcountdown', blockno } })
            expect(res.status, `blockno=${blockno}: ${res.text}`).to.be.lessThan(500)
            // [choice] Blockscout's v1 RPC answers errors as {status:"0", message, result}, HTTP 200 or 4xx.
            expect(res.body?.status, `blockno=${blockno}: ${res.text}`).to.equal('0')
            expect(res.body?.message, `blockno=${blockno}`).to.be.a('string')
        }
    })
})
