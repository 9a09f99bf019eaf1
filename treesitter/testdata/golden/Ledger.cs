using System;
using System.Collections.Generic;

namespace Bank.Core
{
    /// <summary>Ledger records entries. It never deletes.</summary>
    [Serializable]
    public class Ledger : IDisposable
    {
        private readonly List<decimal> entries = new List<decimal>();
        int version;

        public decimal Total { get; private set; }

        public decimal Last
        {
            get
            {
                if (entries.Count == 0) return 0;
                var last = entries[entries.Count - 1];
                return last;
            }
        }

        /// <summary>Add appends an entry. Zero is ignored.</summary>
        public void Add(decimal amount)
        {
            if (amount == 0) return;
            entries.Add(amount);
            Total += amount;
            version++;
        }

        public int Count() => entries.Count;

        void Bump()
        {
            version++;
            version++;
            version++;
            version++;
        }

        public void Dispose() { }
    }

    interface IAudit { void Check(Ledger l); }
}
