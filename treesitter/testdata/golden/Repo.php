<?php
namespace App\Models;

use App\Db\Connection;
use Psr\Log\LoggerInterface as Log;

/**
 * Repo loads models. It caches by id.
 * More text.
 */
final class Repo extends Base implements Finder
{
    const TABLE = 'models';
    private array $cache = [];
    public ?Log $log = null;

    public function __construct(private Connection $db)
    {
        $this->cache = [];
        $this->log = null;
        parent::__construct();
    }

    /** find returns the model with id. Null when absent. */
    public function find(int $id): ?array
    {
        if (isset($this->cache[$id])) {
            return $this->cache[$id];
        }
        $row = $this->db->one(self::TABLE, $id);
        $this->cache[$id] = $row;
        return $row;
    }

    private function clear(): void
    {
        $this->cache = [];
        $this->log = null;
        $this->db = null;
    }
}

function helper($a)
{
    $b = $a + 1;
    $c = $b * 2;
    return $c;
}
