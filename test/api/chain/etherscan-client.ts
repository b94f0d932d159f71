import { expect } from 'chai'
import { ApiResponse, frontendQuery, readResponse } from './helpers'

/**
 * The Etherscan-style API's envelope as the tests read it (docs/etherscan-api.md): successes,
 * failures with their message and result, and page/offset walks, against the explorer port
 * `baseUrl` names (the shared stack's, or a file's own api process).
 */
export function etherscanClient(baseUrl: () => Promise<string>) {
    const describeRes = (res: ApiResponse) => `HTTP ${res.status}: ${res.text.slice(0, 500)}`

    /** GET a path (/api?...) as written, or /api with the query. */
    async function es(query: Record<string, unknown> | string): Promise<ApiResponse> {
        const path = typeof query === 'string' ? query : `/api${frontendQuery(query)}`
        return readResponse(await fetch(`${await baseUrl()}${path}`))
    }

    /** A success: HTTP 200, status "1", message "OK"; returns the result. */
    async function result(query: Record<string, unknown>): Promise<any> {
        const res = await es(query)
        const what = `${JSON.stringify(query)} → ${describeRes(res)}`
        expect(res.status, what).to.equal(200)
        expect(res.body?.status, what).to.equal('1')
        expect(res.body?.message, what).to.equal('OK')
        return res.body.result
    }

    /** A failure in the envelope: status "0", the message, the result (null for a bad request, [] for nothing found). */
    async function expectError(query: Record<string, unknown> | string, message: string | RegExp, options: { result?: unknown; http?: number } = {}): Promise<void> {
        const res = await es(query)
        const what = `${JSON.stringify(query)} → ${describeRes(res)}`
        expect(res.status, what).to.equal(options.http ?? 200)
        expect(res.body, what).to.be.an('object')
        expect(Object.keys(res.body).sort(), what).to.deep.equal(['message', 'result', 'status'])
        expect(res.body.status, what).to.equal('0')
        if (typeof message === 'string') expect(res.body.message, what).to.equal(message)
        else expect(res.body.message, what).to.match(message)
        expect(res.body.result, what).to.deep.equal(options.result === undefined ? null : options.result)
    }

    /** Walks page=1,2,… with the offset until "No … found" and returns every row. */
    async function walkPages(query: Record<string, unknown>, offset: number, notFound: string): Promise<any[]> {
        const rows: any[] = []
        for (let page = 1; page <= 500; page++) {
            const res = await es({ ...query, page, offset })
            expect(res.status, describeRes(res)).to.equal(200)
            if (res.body.status === '0') {
                expect(res.body.message, describeRes(res)).to.equal(notFound)
                expect(res.body.result).to.deep.equal([])
                return rows
            }
            expect(res.body.result.length, `page ${page}`).to.be.at.most(offset)
            if (res.body.result.length < offset) {
                rows.push(...res.body.result)
                // the page after a short one must be empty
                await expectError({ ...query, page: page + 1, offset }, notFound, { result: [] })
                return rows
            }
            rows.push(...res.body.result)
        }
        expect.fail('page walk does not end')
    }

    return { es, result, expectError, walkPages }
}
