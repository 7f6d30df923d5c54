// Shrinks a failing step list by delta debugging: cut the list after the step that fails,
// then try dropping chunks of halving size, keeping every cut that still fails.

/**
 * `fails` answers the index of the failing step, or undefined when the steps pass; the
 * first `keep` steps are never dropped (an episode's init: without it, any scenario fails
 * on the calls made before init, which would hide the divergence being shrunk).
 */
export function shrink<T>(
  steps: readonly T[],
  fails: (steps: readonly T[]) => number | undefined,
  keep = 0,
  maxTries = 5000,
): T[] {
  let tries = 0;
  const attempt = (candidate: readonly T[]) => {
    tries++;
    const at = fails(candidate);
    return at === undefined ? undefined : candidate.slice(0, at + 1);
  };
  let current = attempt(steps) ?? [...steps];
  for (let chunk = Math.ceil(current.length / 2); chunk >= 1 && tries < maxTries;) {
    let removed = false;
    for (let i = keep; i < current.length && tries < maxTries;) {
      const smaller = attempt([...current.slice(0, i), ...current.slice(i + chunk)]);
      if (smaller !== undefined) {
        current = smaller;
        removed = true;
      } else {
        i += chunk;
      }
    }
    if (!removed) chunk = Math.floor(chunk / 2);
  }
  return current;
}
