import { RequestListener } from 'http'
import { registry } from './metrics'

/**
 * GET /health, /ready and /metrics on a small port of their own, for a process whose HTTP server
 * is not ours to extend (the indexer has none; the GraphQL server is Subsquid's):
 * docs/operations.md#health-and-readiness
 */
export function operationsListener(service: string, ready: () => Promise<{ ready: boolean }>): RequestListener {
    return (req, res) => {
        const path = req.url?.split('?')[0]
        const json = (status: number, body: unknown) =>
            res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body))
        if (req.method !== 'GET' || (path !== '/health' && path !== '/ready' && path !== '/metrics')) {
            return json(404, { message: `Not found: the ${service} serves GET /ready, /health and /metrics` })
        }
        if (path === '/health') return json(200, { status: 'ok', timestamp: new Date().toISOString() })
        if (path === '/metrics') {
            registry.metrics().then((text) => res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(text),
                (err) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${String(err?.message ?? err)}`))
            return
        }
        ready().then((report) => json(report.ready ? 200 : 503, report),
            (err) => json(500, { ready: false, status: `readiness failed: ${String(err?.message ?? err)}` }))
    }
}
