import { onBeforeUnmount, onMounted } from 'vue';
import { onWatchChanged } from '../api/spyglass';

/**
 * For a screen that shows the latest snapshot: `load()` when the screen mounts and again whenever a
 * new snapshot is written (a refresh here or elsewhere), until it unmounts. Call from `<script setup>`.
 */
export function useSnapshotReload(load: () => unknown): void {
  let stop: (() => void) | null = null;
  onMounted(() => {
    void load();
    stop = onWatchChanged(() => void load());
  });
  onBeforeUnmount(() => stop?.());
}
