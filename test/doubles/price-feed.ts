import { createServer } from 'http'
import { listenLoopback, Loopback } from '../../devnet/loopback'

/**
 * A CoinGecko-style simple-price feed on loopback: GET ?ids=a,b&vs_currencies=usd answers
 * {"a":{"usd":…},"b":{"usd":…}} for the ids it has a price for. `mode` turns it into a feed that
 * answers 500, or 200 with a body that is not JSON.
 */
export class PriceFeed {
    mode: 'ok' | 'error' | 'garbage' = 'ok'
    /** USD by feed id, as JSON numbers (written into the body exactly as given). */
    prices: Record<string, string>
    readonly requests: URL[] = []
    private loopback?: Loopback

    constructor(prices: Record<string, string>) {
        this.prices = { ...prices }
    }

    get url(): string {
        return `${this.loopback!.url}/api/v3/simple/price`
    }

    async start(): Promise<void> {
        this.loopback = await listenLoopback(createServer((req, res) => {
            const url = new URL(req.url!, 'http://localhost')
            this.requests.push(url)
            if (this.mode === 'error') return void res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error')
            if (this.mode === 'garbage') return void res.writeHead(200, { 'content-type': 'application/json' }).end('<html>maintenance</html>')
            const ids = (url.searchParams.get('ids') ?? '').split(',').filter((id) => id in this.prices)
            // Built by hand so a price is the JSON number text the test chose, as a real feed writes it.
            const body = `{${ids.map((id) => `${JSON.stringify(id)}:{"usd":${this.prices[id]}}`).join(',')}}`
            res.writeHead(200, { 'content-type': 'application/json' }).end(body)
        }))
    }

    async stop(): Promise<void> {
        await this.loopback?.close()
    }
}
