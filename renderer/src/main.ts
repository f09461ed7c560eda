// './boot' first: the first screen's IPC calls leave before the rest of the renderer is evaluated.
import './boot';
import { createApp } from 'vue';
import { createPinia } from 'pinia';
import App from './App.vue';
import { dropEarlyCalls } from './api/early';
import { createAppRouter } from './router';

const app = createApp(App);
app.use(createPinia());
const router = createAppRouter();
app.use(router);
app.mount('#app');
// The first screen has taken what it needed once its view has mounted (the task after the first
// navigation); a reply nobody took is not kept for later.
void router.isReady().then(
  () => setTimeout(dropEarlyCalls, 0),
  () => setTimeout(dropEarlyCalls, 0),
);
