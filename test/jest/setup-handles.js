/** globalSetup: the handles Jest itself holds before any test file runs are not a test's leak. */
module.exports = async () => {
  const owners = (globalThis.__geogateHandleOwners ??= new WeakMap());
  for (const h of process._getActiveHandles()) owners.set(h, null);
};
