// The versions of objects a controller has replaced with its own writes. An informer shows a controller's write
// only when its watch event arrives; a sync that starts before that (another event queued the key) would act on
// the version the write replaced, and its writes would fail on the resourceVersion (Conflict) or, worse, decide
// from a state already changed. When the informer still shows a replaced version, the sync can stop: the watch
// event of the write is on its way and queues the key again. Only equality of resourceVersions is used, never
// their order, as the API asks of clients.

export class OwnWrites {
  private readonly replaced = new Map<string, Set<string>>();

  /** Records that this controller replaced version `resourceVersion` of the object `uid`. */
  replacedVersion(uid: string | undefined, resourceVersion: string | undefined): void {
    if (!uid || !resourceVersion) return;
    let versions = this.replaced.get(uid);
    if (!versions) this.replaced.set(uid, (versions = new Set()));
    versions.add(resourceVersion);
  }

  /**
   * Whether `obj`, as the informer shows it, is a version this controller has already replaced. A version it did
   * not replace means the informer has caught up (with this controller's writes or someone else's), and what was
   * recorded about the object is forgotten.
   */
  isStale(obj: { metadata: { uid?: string; resourceVersion?: string } }): boolean {
    const uid = obj.metadata.uid;
    if (!uid) return false;
    const versions = this.replaced.get(uid);
    if (!versions) return false;
    if (obj.metadata.resourceVersion && versions.has(obj.metadata.resourceVersion)) return true;
    this.replaced.delete(uid);
    return false;
  }

  forget(uid: string | undefined): void {
    if (uid) this.replaced.delete(uid);
  }
}
