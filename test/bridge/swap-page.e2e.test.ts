import { expect } from 'chai'
import { randomBytes, randomUUID } from 'crypto'
import * as fs from 'fs'
import * as path from 'path'
import puppeteer, { Browser, Page } from 'puppeteer-core'
import QRCode from 'qrcode'
import { Client } from 'pg'
import { getAddress, parseUnits } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { PAGE_CSP, QR_OPTIONS } from '../../bridge/http/swap-page'
import { createTestDatabase } from '../support/postgres'
import {
    account, api, BridgeChains, BridgeProcess, bridgeEnv, createSwap, fundVaults, send, startBridge, startBridgeChains, tempDir, waitForStatus,
} from './support'

/**
 * The swap page (docs/bridge/README.md#swap-page) in headless Chromium, on the real compiled bridge
 * process, following a real NATIVE → USDT on ETHEREUM swap from its creation to its payout, and a
 * swap that expired and then received a deposit, refunded.
 */

// The predicates below run in the page, where `document` is the browser's.
declare const document: any

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const SCREENSHOTS = path.resolve(__dirname, '../../../test-output/swap-page')
/** Every status of a completed swap without a provider leg, in order (docs/bridge/lifecycle.md#lifecycle). */
const COMPLETED = [
    'pending_deposit', 'deposit_detected', 'deposit_confirmed', 'rate_locked', 'gathering', 'gathered',
    'vault_locking', 'vault_locked', 'payout_processing', 'completed',
]
/** The page's words for those statuses (bridge/http/page/assets/words.js), as a user should read them. */
const COMPLETED_WORDS = [
    'Waiting for your deposit', 'Deposit received, waiting for network confirmations', 'Deposit confirmed', 'Exchange rate locked',
    'Moving your deposit to the bridge vault', 'Deposit in the bridge vault', 'Reserving your payout', 'Payout reserved',
    'Sending your payout', 'Completed: payout sent',
]
const WAIT = { timeout: 120_000 }
/** Explorer settings of two networks, one per form (a base URL; two templates). */
const NATIVE_EXPLORER = 'http://explorer.test'
const ETHEREUM_EXPLORER = 'https://eth.example/transaction/{hash} https://eth.example/account/{address}'

/** What the page should show of a decimal string: six decimals, or six significant ones below 1, cut, trailing zeros dropped. */
function shown(value: string): string {
    const [whole, fraction = ''] = value.split('.')
    const leadingZeros = whole === '0' ? fraction.search(/[1-9]/) : 0
    const digits = fraction.slice(0, leadingZeros > 0 ? leadingZeros + 6 : 6).replace(/0+$/, '')
    return digits ? `${whole}.${digits}` : whole
}

describe('bridge: the swap page follows a real swap in a browser', function () {
    this.timeout(300_000)
    let w: BridgeChains
    let bridge: BridgeProcess
    let env: Record<string, string>
    let databaseUrl: string
    let dir: string
    let browser: Browser
    let page: Page
    /** Whatever the page reported as going wrong: script errors, CSP violations, failed loads. */
    const problems: string[] = []

    before(async function () {
        databaseUrl = await createTestDatabase('bridge_swap_page')
        w = await startBridgeChains()
        dir = tempDir()
        env = { ...bridgeEnv(w, databaseUrl, dir), BRIDGE_EXPLORER_URL_NATIVECHAIN: NATIVE_EXPLORER, BRIDGE_EXPLORER_URL_ETHEREUM: ETHEREUM_EXPLORER }
        bridge = await startBridge(env)
        await fundVaults(w, bridge)
        browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] })
        page = await browser.newPage()
        // The copy buttons write to the clipboard, and the test reads it back.
        await browser.defaultBrowserContext().overridePermissions(bridge.url, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write'])
        page.on('pageerror', (err) => problems.push(`page error: ${(err as Error).message}`))
        // A failed load is listed by its response below, with its URL.
        page.on('console', (m) => {
            if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`)
        })
        page.on('response', (r) => {
            if (r.status() >= 400) problems.push(`${r.status()} ${new URL(r.url()).pathname}`)
        })
        page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`))
        fs.mkdirSync(SCREENSHOTS, { recursive: true })
    })

    after(async function () {
        await browser?.close()
        await bridge?.stop()
        await w?.stop()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    const textOf = (id: string) => page.$eval(`#${id}`, (e: any) => e.textContent)
    const refundLines = () => page.$$eval('#refund-state p', (lines: any[]) => lines.map((p) => p.textContent))
    const timeline = () => page.$$eval('#timeline li', (items: any[]) => items.map((li) => li.dataset.status))
    const steps = () => page.$$eval('#timeline li .step', (items: any[]) => items.map((e) => e.textContent))
    const hrefOf = (id: string) => page.$eval(`#${id}`, (a: any) => (a.hidden ? null : a.getAttribute('href')))
    const visible = (id: string) => page.$eval(`#${id}`, (e: any) => e.getClientRects().length > 0)
    const liveLine = (state: string) => page.waitForFunction(
        (s: string) => document.getElementById('connection').dataset.state === s, WAIT, state)
    const shows = (status: string) => page.waitForFunction(
        (s: string) => document.querySelector(`#timeline li[data-status="${s}"]`) !== null, WAIT, status)
    const current = (status: string) => page.waitForFunction(
        (s: string) => document.querySelector('#timeline li[aria-current="step"]')?.dataset.status === s &&
            document.getElementById('status').dataset.status === s, WAIT, status)
    const screenshot = async (name: string) => {
        const file = path.join(SCREENSHOTS, `${name}.png`)
        await page.screenshot({ path: file, fullPage: true })
        console.log(`      screenshot: ${file}`)
    }

    it('shows the deposit address, amount and QR code, each status as it happens, the transactions, and the same after a reload', async function () {
        const user = account(5)
        const swap = await createSwap(bridge, {
            source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'ETHEREUM', target_token: 'USDT',
            source_token_amount: '0.5', target_wallet: account(6).address, refund_address: user.address,
        })
        // Lists every status the page's header shows, so the test can see that it only ever moves forward.
        await page.evaluateOnNewDocument(() => {
            const seen: string[] = []
            ;(globalThis as any).seenStatuses = seen
            new (globalThis as any).MutationObserver(() => {
                const status = document.getElementById('status')?.dataset.status
                if (status && seen[seen.length - 1] !== status) seen.push(status)
            }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] })
        })
        const response = await page.goto(`${bridge.url}/swap/${swap.id}`)
        expect(response!.status()).to.equal(200)
        expect(response!.headers()['content-type']).to.match(/^text\/html/)
        expect(response!.headers()['content-security-policy']).to.equal(PAGE_CSP)
        expect(response!.headers()['x-content-type-options']).to.equal('nosniff')

        await current('pending_deposit')
        expect(await textOf('deposit-address')).to.equal(swap.deposit_address)
        expect(await textOf('amount')).to.equal('0.5')
        expect(await textOf('asset')).to.equal('NATIVE')
        expect(await textOf('network')).to.equal('NATIVECHAIN')
        expect(await textOf('expiry')).to.match(/^Expires in \d+ min \d\d s/)
        expect(await textOf('deposit-tx')).to.equal('—')
        // The QR code: loaded by the page (CSP allows it), and exactly qrcode's drawing of the deposit address.
        await page.waitForFunction(() => {
            const img = document.getElementById('qr')
            return img.complete && img.naturalWidth > 0 && img.getClientRects().length > 0
        }, WAIT)
        const qrSrc = await page.$eval('#qr', (img: any) => img.getAttribute('src'))
        expect(qrSrc).to.equal(`/swap/${swap.id}/qr.svg`)
        const qr = await fetch(`${bridge.url}${qrSrc}`)
        expect(qr.status).to.equal(200)
        expect(qr.headers.get('content-type')).to.match(/^image\/svg\+xml/)
        const svg = await qr.text()
        expect(svg).to.match(/^<svg /)
        expect(svg).to.equal(await QRCode.toString(swap.deposit_address, QR_OPTIONS))
        // The live socket is subscribed before the deposit goes out.
        await liveLine('live')
        expect(await textOf('connection')).to.equal('Live: each step appears as it happens.')
        // The estimate: the figures of /api/swap/config (one monitor cycle, NATIVECHAIN's 2 confirmations, ETHEREUM's finalized tag) and a minute.
        const config = (await api(bridge, 'GET', '/api/swap/config')).body
        const networkOf = (chain: string) => config.networks.find((n: any) => n.chain === chain)
        expect(networkOf('NATIVECHAIN').finality_seconds).to.equal(4)
        expect(networkOf('ETHEREUM').finality_seconds).to.equal(900)
        expect(networkOf('NATIVECHAIN').explorer).to.deep.equal({ tx: `${NATIVE_EXPLORER}/tx/{hash}`, address: `${NATIVE_EXPLORER}/address/{address}` })
        expect(networkOf('ETHEREUM').explorer).to.deep.equal({ tx: 'https://eth.example/transaction/{hash}', address: 'https://eth.example/account/{address}' })
        expect(networkOf('BSC').explorer).to.equal(null)
        const minutes = Math.ceil((config.monitor_interval_seconds + 4 + 60 + 900) / 60)
        expect(await textOf('eta')).to.equal(`After your deposit, the swap takes: about ${minutes} minutes.`)
        // Copy: the exact address reaches the clipboard, and the button says so.
        await page.click('#copy-deposit-address')
        await page.waitForFunction(() => document.getElementById('copy-deposit-address').textContent === 'Copied', WAIT)
        expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).to.equal(swap.deposit_address)
        expect(await hrefOf('deposit-address-link')).to.equal(`${NATIVE_EXPLORER}/address/${swap.deposit_address}`)
        await screenshot('pending')

        const depositHash = await send(w.chains.NATIVECHAIN, 5, swap.deposit_address, parseUnits('0.5', 18))
        for (const status of COMPLETED.slice(1)) await shows(status)
        await current('completed')
        await page.waitForFunction((hash: string) => document.getElementById('deposit-tx').textContent === hash, WAIT, depositHash)
        const done = await waitForStatus(bridge, swap.id, ['completed'])
        await page.waitForFunction((hash: string) => document.getElementById('payout-tx').textContent === hash, WAIT, done.payout_tx_hash)
        expect(await timeline()).to.deep.equal(COMPLETED)
        expect(await steps()).to.deep.equal(COMPLETED_WORDS)
        expect(await textOf('status')).to.equal('Completed: payout sent')
        await liveLine('finished')
        expect(await textOf('connection')).to.equal('Finished: this swap has ended.')
        expect(await visible('eta')).to.equal(false)
        expect(await page.$eval('#refund', (e: any) => e.hidden)).to.equal(true)
        // Paid: the address is no longer offered as something to pay.
        expect(await page.$eval('#qr', (e: any) => e.getClientRects().length)).to.equal(0)
        await screenshot('completed')
        // The header moved forward only, from the first status to the last, without a reload.
        const seen: string[] = await page.evaluate(() => (globalThis as any).seenStatuses)
        expect(seen[0]).to.equal('pending_deposit')
        expect(seen.at(-1)).to.equal('completed')
        expect(seen.map((s) => COMPLETED.indexOf(s))).to.deep.equal(seen.map((s) => COMPLETED.indexOf(s)).sort((a, b) => a - b))

        await page.reload()
        await current('completed')
        expect(await timeline()).to.deep.equal(COMPLETED)
        expect(await textOf('deposit-tx')).to.equal(depositHash)
        expect(await textOf('payout-tx')).to.equal(done.payout_tx_hash)
        expect(await textOf('deposit-address')).to.equal(swap.deposit_address)
        expect(await textOf('receive-amount')).to.equal(shown(done.target_token_amount))
        expect(await page.$eval('#receive-amount', (e: any) => e.title)).to.equal(done.target_token_amount)
        expect(await textOf('receive-prefix')).to.equal('Sent')
        expect(await textOf('expiry')).to.match(/^Deposit window: until /)

        // The rate (18 decimals in the answer: cut on the page), the minimum and each fee.
        expect(done.rate.split('.')[1].length).to.be.greaterThan(6)
        expect(await textOf('rate')).to.match(new RegExp(`^1 NATIVE = ${shown(done.rate).replace('.', '\\.')} USDT, after the bridge fee \\(locked `))
        expect(await textOf('min-received')).to.equal(`${shown(done.min_target_amount)} USDT: at a worse rate the swap does not go ahead and your deposit is refunded.`)
        expect(done.fees.bridge).to.deep.equal({ percent: '2.50', amount: '0.0125', token: 'NATIVE' })
        expect(await textOf('fee-bridge')).to.equal('2.50% of the deposit: 0.0125 NATIVE')
        expect(done.fees.pools).to.have.length(1)
        const [pool] = done.fees.pools
        expect(pool.percent).to.equal('0.20')
        expect(await textOf('fee-pools')).to.equal(`0.20% on ${pool.chain} (${shown(pool.amount)} ${pool.token}), included in the rate`)
        expect(await visible('fee-provider')).to.equal(false)
        expect(await textOf('fee-network')).to.equal('Paid by the bridge, not taken from your payout.')
        // Every amount on the page is cut: no more than six decimals unless below 1.
        const amounts: string[] = await page.$$eval('#amount, #receive-amount', (nodes: any[]) => nodes.map((n) => n.textContent))
        for (const a of amounts) expect(a).to.match(/^\d+(\.\d{1,6})?$/)
        // Explorer links from the settings: the native chain's base URL, ETHEREUM's templates; no refund, no link.
        expect(await hrefOf('deposit-tx-link')).to.equal(`${NATIVE_EXPLORER}/tx/${depositHash}`)
        expect(await hrefOf('payout-tx-link')).to.equal(`https://eth.example/transaction/${done.payout_tx_hash}`)
        expect(await hrefOf('target-wallet-link')).to.equal(`https://eth.example/account/${done.target_wallet}`)
        expect(await hrefOf('refund-tx-link')).to.equal(null)
        await page.click('#copy-payout-tx')
        await page.waitForFunction(() => document.getElementById('copy-payout-tx').textContent === 'Copied', WAIT)
        expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).to.equal(done.payout_tx_hash)
        expect(problems).to.deep.equal([])
    })

    it('cuts amounts by string logic, and serves its icon', async function () {
        const cases: [string, string][] = [
            ['19.453203874468704466', '19.453203'], ['0.000012345678912345', '0.0000123456'], ['1995.805797948717948717', '1995.805797'],
            ['0.5', '0.5'], ['100.000000000000000001', '100'], ['123456789012345678901234.5', '123456789012345678901234.5'], ['0', '0'],
        ]
        const got = await page.evaluate((values: string[]) => values.map((v) => (globalThis as any).SwapAmounts.displayAmount(v)), cases.map(([v]) => v))
        expect(got).to.deep.equal(cases.map(([, want]) => want))
        for (const [value, want] of cases) expect(shown(value), value).to.equal(want)

        expect(await page.$eval('link[rel="icon"]', (l: any) => l.getAttribute('href'))).to.equal('/favicon.ico')
        const icon = await fetch(`${bridge.url}/favicon.ico`)
        expect(icon.status).to.equal(200)
        expect(icon.headers.get('content-type')).to.match(/^image\/svg\+xml/)
        expect(await icon.text()).to.match(/^<svg /)
        // The page's own load of the icon (an image the browser decodes) under the page's CSP.
        expect(await page.evaluate(() => new Promise((resolve) => {
            const img = document.createElement('img')
            img.onload = () => resolve(img.naturalWidth > 0)
            img.onerror = () => resolve(false)
            img.src = '/favicon.ico'
        }))).to.equal(true)
        expect(problems).to.deep.equal([])
    })

    it('follows the swap across a bridge restart: the socket reopens and the page reads what happened meanwhile', async function () {
        const swap = await createSwap(bridge, {
            source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'ETHEREUM', target_token: 'USDT',
            source_token_amount: '0.2', target_wallet: account(6).address, refund_address: account(5).address,
        })
        await page.goto(`${bridge.url}/swap/${swap.id}`)
        await current('pending_deposit')
        await liveLine('live')

        const port = Number(new URL(bridge.url).port)
        await bridge.stop()
        await liveLine('reconnecting')
        expect(await textOf('connection')).to.match(/^Reconnecting… \(next try in \d+ s\)$/)
        // The page stays cut off until the swap is over, so it can learn its steps only by reading them after it reconnects.
        await page.setOfflineMode(true)
        await send(w.chains.NATIVECHAIN, 5, swap.deposit_address, parseUnits('0.2', 18))
        bridge = await startBridge(env, { port })
        const done = await waitForStatus(bridge, swap.id, ['completed'])
        expect(await timeline()).to.deep.equal(['pending_deposit'])
        await page.setOfflineMode(false)

        await current('completed')
        expect(await timeline()).to.deep.equal(COMPLETED)
        expect(await page.evaluate(() => (globalThis as any).seenStatuses)).to.deep.equal(['pending_deposit', 'completed'])
        await liveLine('finished')
        await page.waitForFunction((hash: string) => document.getElementById('payout-tx').textContent === hash, WAIT, done.payout_tx_hash)
        // While the bridge was away the page's reads and socket failed; nothing else went wrong.
        expect(problems.splice(0).filter((p) => !/ERR_CONNECTION_REFUSED|ERR_INTERNET_DISCONNECTED|WebSocket connection to .* failed/.test(p))).to.deep.equal([])
    })

    it('a failed swap: its reason and refund, as text; an expired one: no deposit arrived', async function () {
        // Rows as the engine leaves such swaps (no events): the page's rendering of them is what is tested here.
        const hash = (byte: string) => `0x${byte.repeat(32)}`
        const reason = '<img src=x onerror="document.title=1">rate moved beyond the allowed slippage'
        const db = new Client({ connectionString: databaseUrl })
        await db.connect()
        const insert = async (status: string, index: number, extra: string, values: unknown[]) => (await db.query(
            `INSERT INTO bridge_swap (id, status, source_chain, source_token, target_chain, target_token, source_amount, target_wallet, refund_address,
                route_kind, route, fee_bps, deposit_family, deposit_index, deposit_address, watch_from_block, expires_at${extra ? `, ${extra}` : ''})
             VALUES (gen_random_uuid(), $1, 'NATIVECHAIN', 'NATIVE', 'ETHEREUM', 'USDT', 500000000000000000, $2, $2, 'pool', $3, 250, 'evm', $4, $5, 0,
                now() - interval '1 minute'${values.map((_, i) => `, $${i + 6}`).join('')}) RETURNING id`,
            // A fresh deposit address that nothing ever pays: the monitor watches an ended swap's address for late deposits.
            [status, account(5).address, { kind: 'pool', legs: [], min_amount: '0.001', max_amount: '1000' }, index,
                getAddress(`0x${randomBytes(20).toString('hex')}`), ...values],
        )).rows[0].id as string
        let failed: string
        let expired: string
        try {
            failed = await insert('failed', 9_000_001, 'deposit_tx_hash, deposit_amount, refund_status, refund_tx_hash, refund_amount, error_message',
                [hash('ab'), '500000000000000000', 'sent', hash('cd'), '490000000000000000', reason])
            expired = await insert('expired', 9_000_002, '', [])
        } finally {
            await db.end()
        }

        await page.goto(`${bridge.url}/swap/${failed}`)
        await page.waitForFunction(() => document.getElementById('status').dataset.status === 'failed', WAIT)
        expect(await page.$eval('#refund', (e: any) => e.hidden)).to.equal(false)
        expect(await refundLines()).to.deep.equal([`Reason: ${reason}`, `Refunded 0.49 NATIVE to ${account(5).address}.`])
        // The reason's markup stayed text.
        expect(await page.$$eval('#refund *', (nodes: any[]) => nodes.map((n) => n.tagName))).to.deep.equal(['H2', 'DIV', 'P', 'P'])
        expect(await textOf('deposit-tx')).to.equal(hash('ab'))
        expect(await textOf('refund-tx')).to.equal(hash('cd'))
        expect(await textOf('expiry')).to.match(/^Deposit window closed: /)
        expect(await visible('receive')).to.equal(false)
        expect(await hrefOf('refund-tx-link')).to.equal(`${NATIVE_EXPLORER}/tx/${hash('cd')}`)
        await screenshot('refunded')

        await page.goto(`${bridge.url}/swap/${expired}`)
        await page.waitForFunction(() => document.getElementById('status').dataset.status === 'expired', WAIT)
        expect(await refundLines()).to.deep.equal(['The swap expired before a deposit arrived: nothing was received, nothing is owed.'])
        expect(await visible('receive')).to.equal(false)
        expect(await visible('late')).to.equal(false)
        await liveLine('finished')
        expect(problems).to.deep.equal([])
    })

    for (const [what, id] of [['an unknown id', randomUUID()], ['a malformed id', 'not-a-swap']]) {
        it(`${what}: the page loads, with its CSP, and says the swap is not found`, async function () {
            const response = await page.goto(`${bridge.url}/swap/${id}`)
            expect(response!.status()).to.equal(200)
            expect(response!.headers()['content-security-policy']).to.equal(PAGE_CSP)
            await page.waitForFunction(() => document.getElementById('message').textContent.startsWith('Swap not found'), WAIT)
            expect(await page.$eval('#swap', (e: any) => e.hidden)).to.equal(true)
            const qr = await fetch(`${bridge.url}/swap/${id}/qr.svg`)
            expect(qr.status).to.equal(id === 'not-a-swap' ? 400 : 404)
            expect(((await qr.json()) as any).error.code).to.equal(id === 'not-a-swap' ? 'invalid_request' : 'not_found')
            // The page asks the API, which answers the 404 (or, for a malformed id, the page asks nothing).
            expect(problems.splice(0).sort()).to.deep.equal(id === 'not-a-swap' ? [] : [`404 /api/swap/${id}`, `404 /api/swap/${id}/events`])
        })
    }

    it('serves its script and style with the CSP, and nothing outside the assets folder', async function () {
        for (const [file, type] of [['swap.js', /^(application|text)\/javascript/], ['swap.css', /^text\/css/]] as const) {
            const res = await fetch(`${bridge.url}/swap/assets/${file}`)
            expect(res.status, file).to.equal(200)
            expect(res.headers.get('content-type'), file).to.match(type)
            expect(res.headers.get('content-security-policy'), file).to.equal(PAGE_CSP)
        }
        expect((await fetch(`${bridge.url}/swap/assets/..%2Fswap.html`)).status).to.equal(404)
    })

    // Last: it restarts the bridge with a deposit window of 3 s (as test/bridge/late.test.ts does), so swaps expire at once.
    it('an expired swap that then received a deposit: the deposit and its refund, with hashes; no "no deposit", no Receive', async function () {
        const port = Number(new URL(bridge.url).port)
        await bridge.stop()
        bridge = await startBridge({ ...env, BRIDGE_DEPOSIT_WINDOW_SECONDS: '3' }, { port })
        const refundTo = privateKeyToAccount(generatePrivateKey()).address
        const swap = await createSwap(bridge, {
            source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'ETHEREUM', target_token: 'USDT',
            source_token_amount: '0.3', target_wallet: account(6).address, refund_address: refundTo,
        })
        await waitForStatus(bridge, swap.id, ['expired'], 60_000)
        await page.goto(`${bridge.url}/swap/${swap.id}`)
        await page.waitForFunction(() => document.getElementById('status').dataset.status === 'expired', WAIT)
        expect(await refundLines()).to.deep.equal(['The swap expired before a deposit arrived: nothing was received, nothing is owed.'])

        const depositHash = await send(w.chains.NATIVECHAIN, 5, swap.deposit_address, parseUnits('0.3', 18))
        await page.waitForFunction(() => document.querySelector('#late-deposits li[data-state="refunded"]') !== null, WAIT)
        await page.waitForFunction(() => document.querySelector('#timeline li[data-event="late_deposit_refunded"]') !== null, WAIT)
        const [late] = (await api(bridge, 'GET', `/api/swap/${swap.id}`)).body.late_deposits
        expect(late).to.include({ status: 'refunded', tx_hash: depositHash, refund_address: refundTo, refund_amount: '0.3' })
        expect(late.refund_tx_hash).to.match(/^0x[0-9a-f]{64}$/)

        // The deposit and its refund, each hash with its link and copy button.
        expect(await page.$$eval('#late-deposits .late-tx', (n: any[]) => n.map((e) => e.textContent))).to.deep.equal([depositHash])
        expect(await page.$$eval('#late-deposits .late-refund-tx', (n: any[]) => n.map((e) => e.textContent))).to.deep.equal([late.refund_tx_hash])
        expect(await page.$$eval('#late-deposits a.explorer', (n: any[]) => n.map((e) => e.getAttribute('href')))).to.deep.equal([
            `${NATIVE_EXPLORER}/tx/${depositHash}`, `${NATIVE_EXPLORER}/tx/${late.refund_tx_hash}`,
        ])
        expect(await page.$eval('#late-deposits .late-summary', (e: any) => e.textContent)).to.match(
            new RegExp(`^0\\.3 NATIVE, seen .*: refunded \\(0\\.3 NATIVE to ${refundTo}\\)\\.$`))
        await page.click('#late-deposits li p:last-child button.copy')
        await page.waitForFunction(() => document.querySelector('#late-deposits li p:last-child button.copy').textContent === 'Copied', WAIT)
        expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).to.equal(late.refund_tx_hash)

        // The state after the expiry says what became of the money, and nothing offers a payout.
        const lines = await refundLines()
        expect(lines).to.deep.equal(['The deposit window closed, then a deposit arrived: not swapped, returned as shown under "Deposits that were not swapped".'])
        expect(lines.join(' ')).not.to.match(/before a deposit arrived|nothing was received/)
        expect(await visible('receive')).to.equal(false)
        expect(await visible('terms')).to.equal(false)
        expect(await page.evaluate(() => document.body.innerText)).not.to.match(/\bReceive\b|About \d/)
        expect(await steps()).to.deep.equal([
            'Waiting for your deposit', 'Expired: the deposit window closed',
            'A deposit arrived outside the swap: it will be returned', 'That deposit was refunded',
        ])
        await liveLine('finished')
        await screenshot('late-refunded')
        expect(problems.splice(0).filter((p) => !/ERR_CONNECTION_REFUSED|WebSocket connection to .* failed/.test(p))).to.deep.equal([])
    })

    // After the test above: the bridge still expires swaps at once.
    it('two extra deposits that arrived together: each listed with its amount, hash, link and the one refund that carried both', async function () {
        const chain = w.chains.NATIVECHAIN
        const refundTo = privateKeyToAccount(generatePrivateKey()).address
        const swap = await createSwap(bridge, {
            source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'ETHEREUM', target_token: 'USDT',
            source_token_amount: '0.3', target_wallet: account(6).address, refund_address: refundTo,
        })
        await waitForStatus(bridge, swap.id, ['expired'], 60_000)
        // Both in one block (mining paused while they are sent): the watch finds them at once, one late deposit.
        const rpc = (method: string, params: unknown[]) => chain.client.request({ method: method as any, params: params as any }) as Promise<any>
        const hashes: string[] = []
        await rpc('evm_setIntervalMining', [0])
        try {
            for (const value of [parseUnits('0.25', 18), parseUnits('0.15', 18)]) {
                hashes.push(await rpc('eth_sendTransaction', [{ from: account(5).address, to: swap.deposit_address, value: `0x${value.toString(16)}`, gasPrice: '0x0' }]))
            }
            await rpc('evm_mine', [])
        } finally {
            await rpc('evm_setIntervalMining', [1])
        }
        await page.goto(`${bridge.url}/swap/${swap.id}`)
        await page.waitForFunction(() => document.querySelector('#late-deposits li[data-state="refunded"]') !== null, WAIT)
        const [late] = (await api(bridge, 'GET', `/api/swap/${swap.id}`)).body.late_deposits
        expect(late.transfers.map((t: any) => [t.tx_hash, t.amount])).to.deep.equal([[hashes[0], '0.25'], [hashes[1], '0.15']])
        expect(late).to.include({ status: 'refunded', amount: '0.4', refund_amount: '0.4', unattributed_amount: '0' })

        // Each transfer: its amount, block and fate (the refund that carried both), its hash with copy and explorer link.
        const block = late.transfers[0].block_number
        expect(await page.$$eval('#late-deposits .late-transfer-summary', (n: any[]) => n.map((e) => e.textContent))).to.deep.equal([
            `0.25 NATIVE (block ${block}): refunded in ${late.refund_tx_hash}`,
            `0.15 NATIVE (block ${block}): refunded in ${late.refund_tx_hash}`,
        ])
        expect(await page.$$eval('#late-deposits .late-tx', (n: any[]) => n.map((e) => e.textContent))).to.deep.equal(hashes)
        expect(await page.$$eval('#late-deposits .late-refund-tx', (n: any[]) => n.map((e) => e.textContent))).to.deep.equal([late.refund_tx_hash])
        expect(await page.$$eval('#late-deposits a.explorer', (n: any[]) => n.map((e) => e.getAttribute('href')))).to.deep.equal([
            ...hashes.map((h) => `${NATIVE_EXPLORER}/tx/${h}`), `${NATIVE_EXPLORER}/tx/${late.refund_tx_hash}`,
        ])
        expect(await page.$eval('#late-deposits .late-summary', (e: any) => e.textContent)).to.match(
            new RegExp(`^0\\.4 NATIVE in 2 deposits, seen .*: refunded \\(0\\.4 NATIVE to ${refundTo}\\), all returned together in one transfer\\.$`))
        expect(await page.$$eval('#late-deposits .late-unattributed', (n: any[]) => n.length)).to.equal(0)
        expect(await refundLines()).to.deep.equal(['The deposit window closed, then 2 deposits arrived: not swapped, returned as shown under "Deposits that were not swapped".'])
        await screenshot('late-two-transfers')
        expect(problems.splice(0).filter((p) => !/ERR_CONNECTION_REFUSED|WebSocket connection to .* failed/.test(p))).to.deep.equal([])
    })
})
