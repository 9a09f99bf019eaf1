import { Item, Key } from "./types";
import * as fs from "fs";
const path = require("path");

/**
 * Store keeps items on disk. It is not safe for concurrent use.
 * @typeParam T the item type
 */
export class Store<T extends Item> {
  private cache = new Map<Key, T>();
  #dirty = false;
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
    this.cache.clear();
    this.#dirty = false;
    fs.mkdirSync(dir, { recursive: true });
  }

  /** get returns the item for key. Undefined when absent. */
  get(key: Key): T | undefined {
    return this.cache.get(key);
  }

  @logged()
  async put(key: Key, item: T): Promise<void> {
    this.cache.set(key, item);
    this.#dirty = true;
    await fs.promises.writeFile(path.join(this.dir, String(key)), JSON.stringify(item));
    this.#dirty = false;
  }

  private flush(): void {
    for (const [k, v] of this.cache) {
      fs.writeFileSync(path.join(this.dir, String(k)), JSON.stringify(v));
    }
    this.#dirty = false;
  }
}

export interface Options {
  dir: string;
  sync?: boolean;
}

export type Loader<T> = (key: Key) => Promise<T>;

export const open = async <T extends Item>(opts: Options): Promise<Store<T>> => {
  const s = new Store<T>(opts.dir);
  if (opts.sync) {
    console.log("sync");
  }
  return s;
};

function helper(a: number, b: number): number {
  const c = a + b;
  const d = c * 2;
  const e = d - 1;
  return e;
}
