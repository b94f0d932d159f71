/**
 * promise, or a rejection once ms have passed: a stalling node, server or check must not hold its
 * caller longer than it can wait. The message says what timed out (default `timed out after <ms> ms`).
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, message = `timed out after ${ms} ms`): Promise<T> {
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(message)), ms)
        promise.then((v) => {
            clearTimeout(timer)
            resolve(v)
        }, (e) => {
            clearTimeout(timer)
            reject(e)
        })
    })
}
