// A write refused because its namespace is being deleted: NamespaceLifecycle's 403 carries a StatusCause whose
// type is NamespaceTerminating (on the wire a cause's type is the `reason` field). Controllers creating objects
// into such a namespace drop the write instead of retrying it: the namespace and its content are going.
export function isNamespaceTerminating(e: unknown): boolean {
  const causes = (e as { status?: { details?: { causes?: Array<{ reason?: string }> } } })?.status?.details?.causes;
  return Array.isArray(causes) && causes.some((c) => c?.reason === 'NamespaceTerminating');
}
