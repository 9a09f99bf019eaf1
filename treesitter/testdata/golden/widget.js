'use strict';
const EventEmitter = require('events');
import { debounce } from './util.js';

/**
 * Widget renders itself into a DOM node. It emits "change".
 */
class Widget extends EventEmitter {
  #state = {};

  constructor(el) {
    super();
    this.el = el;
    this.#state = { count: 0 };
    this.render = debounce(this.render.bind(this), 10);
  }

  /** increment adds one. It re-renders. */
  increment() {
    this.#state.count += 1;
    this.emit('change', this.#state.count);
    this.render();
    return this.#state.count;
  }

  #paint() {
    this.el.textContent = String(this.#state.count);
    this.el.className = 'widget';
    this.el.dataset.count = this.#state.count;
    return this.el;
  }
}

export function mount(selector) {
  const el = document.querySelector(selector);
  const w = new Widget(el);
  w.increment();
  return w;
}

export default Widget;

describe('Widget', () => {
  it('counts', () => {
    const w = mount('#app');
    expect(w.increment()).toBe(2);
  });
});
