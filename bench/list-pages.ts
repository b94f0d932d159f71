/** Blockscout list pages reached the way the explorer frontend reaches them, for the API benchmarks: docs/testing.md#benchmarks */

export const PAGE_SIZE = 50

interface ListPage {
    items: unknown[]
    next_page_params: Record<string, unknown> | null
}

/** One GET of a list route, failing with a message that says which route and why. */
export async function getPage(url: string): Promise<ListPage> {
    const res = await fetch(url)
    const text = await res.text()
    const route = new URL(url).pathname
    if (!res.ok) {
        // The API answers an unknown route with 400 "Unknown API v2 action", as Blockscout does.
        const paged = new URL(url).search !== ''
        const hint = res.status === 400 || res.status === 404
            ? paged ? ' (does the route accept the next_page_params it gave?)' : ' (is the route implemented yet?)'
            : ''
        throw new Error(`GET ${route}${new URL(url).search} answered ${res.status}${hint}: ${text.slice(0, 300)}`)
    }
    let body: ListPage
    try {
        body = JSON.parse(text)
    } catch {
        throw new Error(`GET ${route} did not answer JSON: ${text.slice(0, 300)}`)
    }
    if (!Array.isArray(body?.items) || !('next_page_params' in body)) {
        throw new Error(`GET ${route} did not answer a Blockscout list ({ items, next_page_params }): ${text.slice(0, 300)}`)
    }
    return body
}

/**
 * The URLs of pages 1 to `pages` of a list, each reached as the explorer frontend does: every key
 * of next_page_params goes back as a query parameter (undefined and '' are left out, anything
 * else, null included, is sent as its string), on top of the list's own URL. Every page must be full.
 */
export async function pageUrls(listUrl: string, pages: number, log: (m: string) => void = () => {}): Promise<string[]> {
    const route = new URL(listUrl).pathname
    const urls = [listUrl]
    let previous = ''
    for (let n = 1; ; n++) {
        const body = await getPage(urls[n - 1])
        if (body.items.length !== PAGE_SIZE) throw new Error(`${route} page ${n} has ${body.items.length} items, not ${PAGE_SIZE}`)
        if (n === pages) return urls
        if (!body.next_page_params) throw new Error(`${route} ends at page ${n}: next_page_params is null, so page ${pages} cannot be reached`)
        const params = JSON.stringify(body.next_page_params)
        if (params === previous) throw new Error(`${route} page ${n} repeats the next_page_params of page ${n - 1}: ${params}`)
        previous = params
        const next = new URL(listUrl)
        for (const [key, value] of Object.entries(body.next_page_params)) {
            if (value !== undefined && value !== '') next.searchParams.append(key, String(value))
        }
        urls.push(next.toString())
        if (n % 250 === 0) log(`  ${route}: page ${n + 1} reached`)
    }
}
