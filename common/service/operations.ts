import { Express } from 'express'
import { z } from 'zod'
import { ApiDoc, DocumentedRouter } from './api-doc'
import { registry, timeRequests } from './metrics'
import { ReadyChecks } from './ready-checks'

/** GET /health, /ready and /metrics on an HTTP process's own port: docs/operations.md */

const Health = z.looseObject({ status: z.literal('ok'), timestamp: z.string() })
const Ready = z.object({
    ready: z.boolean(),
    checks: z.record(z.string(), z.string()).describe('per check: `ok`, or why it failed'),
    details: z.record(z.string(), z.unknown()).optional().describe('per check that reports figures, passing or not: those figures (the api\'s `replicas`: each read replica\'s head and lag in blocks)'),
})

export interface OperationsOptions {
    ready: ReadyChecks
    /** More of /health's body (answered from memory), and its schema extending {status, timestamp}. */
    health?: { schema: z.ZodObject; details: () => Record<string, unknown> }
}

/** Times every request of app: call it before any route is mounted. */
export function instrument(app: Express): void {
    app.use(timeRequests())
}

/** The three routes, documented like the surface's own. */
export function operationsRoutes(doc: ApiDoc, { ready, health }: OperationsOptions): DocumentedRouter {
    const router = doc.router('/', 'Operations')
    router.get('/health', {
        operationId: 'getHealth',
        summary: 'Liveness: the process answers (from memory; no database or node is asked)',
        responses: { 200: { description: 'Up', schema: health ? Health.extend(health.schema.shape) : Health } },
    }, (_req, res) => {
        res.set('Cache-Control', 'no-store').json({ status: 'ok', timestamp: new Date().toISOString(), ...health?.details() })
    })
    router.get('/ready', {
        operationId: 'getReadiness',
        summary: 'Readiness: the database answers and the process\'s own checks pass',
        responses: {
            200: { description: 'Ready', schema: Ready },
            503: { description: 'Not ready; `checks` says which check failed', schema: Ready },
        },
    }, async (_req, res) => {
        const report = await ready.report()
        res.status(report.ready ? 200 : 503).set('Cache-Control', 'no-store').json(report)
    })
    router.get('/metrics', {
        operationId: 'getMetrics',
        summary: 'Prometheus metrics of this process (text exposition format)',
        responses: { 200: { description: 'The metrics', schema: z.string(), contentType: registry.contentType } },
    }, async (_req, res) => {
        res.set('Content-Type', registry.contentType).set('Cache-Control', 'no-store').send(await registry.metrics())
    })
    return router
}
