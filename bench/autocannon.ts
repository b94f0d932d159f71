/** Types of the part of autocannon's programmatic API the benchmarks use (it ships none): docs/testing.md#benchmarks */

export interface Histogram {
    average: number
    p50: number
    p99: number
}

export interface AutocannonRequest {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string
    /** Called before each request; what it returns is sent. */
    setupRequest?: (request: AutocannonRequest) => AutocannonRequest
}

export interface AutocannonOptions {
    url: string
    connections: number
    duration: number
    warmup?: { connections: number; duration: number }
    /** Requests per second over all connections; latencies are then corrected for coordinated omission. */
    overallRate?: number
    /** Worker threads firing the requests, so the load generator's own event loop does not delay them. */
    workers?: number
    requests?: AutocannonRequest[]
    /** Called with each client as it is made; with `workers`, the path of a module exporting the function. */
    setupClient?: string
}

export interface AutocannonResult {
    requests: Histogram & { total: number }
    latency: Histogram
    errors: number
    timeouts: number
    non2xx: number
    statusCodeStats: Record<string, { count: number }>
}

export interface AutocannonInstance extends Promise<AutocannonResult> {
    stop(): void
}

// eslint-disable-next-line @typescript-eslint/no-require-imports -- typed by hand above
export const autocannon: (options: AutocannonOptions) => AutocannonInstance = require('autocannon')
