/** A port with some of its methods replaced: how the models wrap the admission store (no module is patched). */

/** `port` with `own` methods in front; every other method is the port's own (found through the prototype chain). */
export function override<P extends object>(port: P, own: Partial<P>): P {
  return Object.assign(Object.create(port) as P, own);
}
