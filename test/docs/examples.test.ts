import { expect } from 'chai'
import * as fs from 'fs'
import * as path from 'path'
import { parseUnits } from 'viem'
import { giveStable, ONE, PlatformFixture, setNativeBalance, startPlatform, waitForIndexedHead } from '../api/platform/support'
import { Example, parseExamples, parseRequest, shapeDifferences } from './examples'

/**
 * The examples of docs/platform-api.md ("Every route by example") are true: each request is sent,
 * in the order written, to one real platform process (anvil, embedded Postgres, the indexer), and
 * each answer must be a success of the documented shape (keys and JSON types, recursively; values
 * differ from run to run). The format of an example: test/docs/examples.ts.
 *
 * Placeholders: `{{stable}}` is the devnet's STABLE token; the others are learnt from answers as
 * CAPTURES says. The wallet created by the first example is funded by the test right after (1000
 * of the coin, 100 000 STABLE), as an integrator would fund it from outside.
 *
 * DOCS_EXAMPLES_RECORD=1 writes the answers of this run into the document instead of comparing:
 * how the documented answers were taken from the running service.
 */

const REPO = path.resolve(__dirname, '../../..')
const PLATFORM_DOC = path.join(REPO, 'docs/platform-api.md')

/** Values an answer gives the later examples, by the first line of the example's request. */
const CAPTURES: { request: string; name: string; from: (body: any) => string }[] = [
    { request: 'POST /api/wallet/register_random', name: 'wallet', from: (b) => b.result.address },
    { request: 'POST /api/token/deploy', name: 'token', from: (b) => b.data.contractAddress },
    { request: 'POST /api/wallet/send', name: 'tx', from: (b) => b.hash },
    { request: 'POST /api/pools/add_liquidity', name: 'pair', from: (b) => b.data.pair },
]

/** Routes answered from the indexer's tables: the test lets it catch up first, so their lists are not empty for want of time. */
const INDEXED = ['GET /api/wallet/tokens', 'GET /api/pools/list']

describe('docs: every platform route by example, each answer of the documented shape', () => {
    let f: PlatformFixture
    const record = process.env.DOCS_EXAMPLES_RECORD === '1'

    before(async () => {
        f = await startPlatform({ indexer: true })
    })

    after(async () => {
        await f?.stop()
    })

    it('docs/platform-api.md', async () => {
        const markdown = fs.readFileSync(PLATFORM_DOC, 'utf8')
        const examples = parseExamples(markdown)
        expect(examples.length).to.be.greaterThan(30)
        const values: Record<string, string> = { stable: f.chain.contracts.stable }
        const answers: unknown[] = []
        for (const example of examples) {
            if (INDEXED.some((route) => example.request.startsWith(route))) await waitForIndexedHead(f)
            const answer = await run(example, values)
            answers.push(answer)
            if (!record) expect(shapeDifferences(answer, example.answer), `line ${example.line}: ${example.request.split('\n')[0]}`).to.deep.equal([])
            const capture = CAPTURES.find((c) => example.request.startsWith(`${c.request}\n`) || example.request === c.request)
            if (capture && !(capture.name in values)) {
                values[capture.name] = capture.from(answer)
                if (capture.name === 'wallet') await fund(values.wallet as `0x${string}`)
            }
        }
        if (record) fs.writeFileSync(PLATFORM_DOC, withAnswers(markdown, examples, answers))
    })

    async function run(example: Example, values: Record<string, string>): Promise<unknown> {
        const request = parseRequest(example.request, values)
        const res = await f.http.send(request.method, request.path, request.body, request.headers['x-user-pwd'])
        expect(res.status, `line ${example.line}: ${request.method} ${request.path}: ${JSON.stringify(res.body)}`).to.be.within(200, 299)
        return res.body
    }

    async function fund(wallet: `0x${string}`): Promise<void> {
        await setNativeBalance(f.chain, wallet, 1000n * ONE)
        await giveStable(f.chain, wallet, parseUnits('100000', 6))
    }
})

/** The document with each example's answer replaced by the one this run received. */
function withAnswers(markdown: string, examples: Example[], answers: unknown[]): string {
    const lines = markdown.split('\n')
    // From the last, so the earlier line numbers stay right.
    for (let i = examples.length - 1; i >= 0; i--) {
        const { answerStart, answerEnd } = examples[i]
        lines.splice(answerStart, answerEnd - answerStart, ...JSON.stringify(answers[i], null, 2).split('\n'))
    }
    return lines.join('\n')
}
