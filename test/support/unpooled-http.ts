import * as http from 'http'

/**
 * An HTTP request on a connection of its own, for servers a test stops and starts again on the
 * same port: fetch keeps connections to the first one in its pool, and the next request on one
 * fails with "other side closed".
 */
export function unpooledRequest(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
        const req = http.request(url, { method: init.method ?? 'GET', headers: init.headers, agent: false }, (res) => {
            let text = ''
            res.on('data', (d) => (text += d))
            res.on('end', () => resolve({ status: res.statusCode!, text }))
        })
        req.on('error', reject)
        req.end(init.body)
    })
}
