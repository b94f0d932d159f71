import { expect } from 'chai'
import { Express } from 'express'
import { ApiDoc, joinPath, MOUNT_PATH, toOpenApiPath } from '../../common/service/api-doc'

/**
 * Every (method, path) an express app answers, read from its router stack. A route on a router
 * that is not a DocumentedRouter (or on the app itself) has no known mount path: it is listed as
 * `?` + its own path, so it can never equal a documented one.
 */
export function registeredRoutes(app: Express): string[] {
    const found: string[] = []
    walk((app as unknown as { router: StackOwner }).router, undefined, found)
    // A path may hold several route layers (a rate limit registered before the handler): one route.
    return [...new Set(found)].sort()
}

interface StackOwner { stack: Layer[]; [MOUNT_PATH]?: string }
interface Layer { route?: { path: string; methods: Record<string, boolean> }; handle?: Partial<StackOwner> }

function walk(owner: StackOwner, mount: string | undefined, found: string[]): void {
    for (const layer of owner.stack) {
        if (layer.route) {
            const path = mount === undefined ? `?${layer.route.path}` : joinPath(mount, layer.route.path)
            for (const method of Object.keys(layer.route.methods)) {
                if (method !== '_all') found.push(`${method} ${toOpenApiPath(path)}`)
            }
        } else if (layer.handle && Array.isArray(layer.handle.stack)) {
            walk(layer.handle as StackOwner, layer.handle[MOUNT_PATH], found)
        }
    }
}

/** Every (method, path) a document holds, in the form and order of registeredRoutes. */
export function documentedRoutes(doc: ApiDoc): string[] {
    return doc.documentedRoutes().map((r) => `${r.method} ${r.path}`).sort()
}

interface GeneratedOperation {
    operationId?: string
    parameters?: { in: string; example?: unknown }[]
    requestBody?: { content: Record<string, { example?: unknown }> }
}

/**
 * The operationId of every operation of a generated document, the operations without one, and
 * those that take a path or query parameter or a body and show no example of it, so a test can
 * check that each operation is named (an SDK method), each name is used once, and each input is shown.
 */
export function operationNames(doc: ApiDoc): { ids: string[]; unnamed: string[]; withoutExample: string[] } {
    const paths = (doc.document() as { paths: Record<string, Record<string, GeneratedOperation>> }).paths
    const operations = Object.entries(paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ route: `${method} ${path}`, op })))
    const shown = (op: GeneratedOperation) => (op.parameters ?? []).filter((p) => p.in !== 'header').some((p) => p.example !== undefined)
        || Object.values(op.requestBody?.content ?? {}).some((m) => m.example !== undefined)
    const takes = (op: GeneratedOperation) => (op.parameters ?? []).some((p) => p.in !== 'header') || !!op.requestBody
    return {
        ids: operations.flatMap((o) => o.op.operationId ? [o.op.operationId] : []),
        unnamed: operations.filter((o) => !o.op.operationId).map((o) => o.route),
        withoutExample: operations.filter((o) => takes(o.op) && !shown(o.op)).map((o) => o.route),
    }
}

/** Asserts that every operation of the document is named, each name once, and shows an example of every input. */
export function expectNamedOperationsWithExamples(doc: ApiDoc): void {
    const { ids, unnamed, withoutExample } = operationNames(doc)
    expect(withoutExample).to.deep.equal([])
    expect(unnamed).to.deep.equal([])
    expect(ids).to.have.length(documentedRoutes(doc).length)
    expect(new Set(ids).size).to.equal(ids.length)
}
